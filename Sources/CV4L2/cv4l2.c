/* Everything in cv4l2.h is inline; this file gives the target something to compile. */
#include "cv4l2.h"
