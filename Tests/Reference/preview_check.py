#!/usr/bin/python3
"""Checks a screenshot of facecam's preview (the browser page, or the --show window) with OpenCV
called directly, never with facecam:

  preview_check.py SCREENSHOT    one JSON object on standard output

- "outline": the bounding box [x, y, w, h] of the largest group of outline-green pixels
  (green high, red and blue low; the stream is JPEG, so not exactly (0, 255, 0)), or null;
- "faces": the faces Haar's frontal cascade (alt2, facecam's default) finds in the whole screenshot
  (cv2.CascadeClassifier, equalised grey, scaleFactor 1.1, minNeighbors 3, at least 40 pixels);
- "overlap": the best IoU between the outline and a face found (0 without either);
- "picture_spread": the standard deviation of the grey levels inside the outline's surroundings
  (the outline grown by its own size), which a blank or flat stream would keep near 0.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from redaction_check import iou  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402


def main(path):
    image = cv2.imread(path)
    if image is None:
        sys.exit(f"preview_check.py: cannot read {path}")
    b, g, r = (image[:, :, i].astype(int) for i in range(3))
    green = ((g > 170) & (r < 100) & (b < 100)).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(green, connectivity=8)
    outline = None
    if count > 1:
        largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        if stats[largest, cv2.CC_STAT_AREA] >= 40:
            outline = [int(v) for v in stats[largest, :4]]
    grey = cv2.equalizeHist(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    cascade = cv2.CascadeClassifier("/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml")
    faces = [[int(v) for v in f] for f in cascade.detectMultiScale(grey, 1.1, 3, 0, (40, 40))]
    overlap = max((iou(outline, f) for f in faces), default=0.0) if outline else 0.0
    spread = 0.0
    if outline:
        x, y, w, h = outline
        area = image[max(0, y - h):y + 2 * h, max(0, x - w):x + 2 * w]
        spread = float(cv2.cvtColor(area, cv2.COLOR_BGR2GRAY).std())
    print(json.dumps({"outline": outline, "faces": faces, "overlap": round(overlap, 3),
                      "picture_spread": round(spread, 1), "size": [image.shape[1], image.shape[0]]}))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
