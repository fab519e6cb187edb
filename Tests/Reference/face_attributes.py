#!/usr/bin/python3
"""OpenCV-Python, independent of facecam, for the face attributes' tests (--pose, --crops).

  face_attributes.py turn IMAGE DEGREES OUT
      IMAGE turned clockwise (as shown) by DEGREES about its centre onto a canvas that holds it
      whole, the corners filled by replicating the edge; OUT is written as PNG.
  face_attributes.py flip IMAGE OUT
      IMAGE mirrored left to right.
  face_attributes.py blur IMAGE SIGMA OUT
      IMAGE blurred by cv2.GaussianBlur of SIGMA pixels.
  face_attributes.py shrink IMAGE FACTOR OUT
      IMAGE resized by FACTOR (cv2.INTER_AREA).
  face_attributes.py blurred-clip IMAGE FRAMES SHARP OUT
      An MJPEG AVI of FRAMES copies of IMAGE at 10 fps, each blurred by a Gaussian of 1.5 pixels but
      frame SHARP (from 0).
  face_attributes.py transparent OUT
      A 100x100 PNG, wholly transparent.
  face_attributes.py pixels IMAGE X Y [X Y ...]
      Prints {"pixels": [[b, g, r], ...]}: the pixels whose areas hold the points (x, y).
  face_attributes.py aligned-crop IMAGE SIZE LANDMARKS CROP
      The aligned crop as InsightFace's norm_crop makes it: cv2.estimateAffinePartial2D of the
      five LANDMARKS (JSON [[x, y], ...], facecam's order) onto the ArcFace template scaled by
      SIZE/112, every point an inlier (a least-squares fit), then cv2.warpAffine (bilinear, black
      border). Prints {"mean_difference": D, "size": [W, H]}: the mean absolute difference in grey
      levels, over every pixel and colour, between it and the image CROP (facecam's).
  face_attributes.py difference A B
      The same comparison of image B with image A.
  face_attributes.py box-crop IMAGE X Y W H CROP
      The same comparison with IMAGE's pixels [Y, Y+H) x [X, X+W), cut by numpy.
"""
import json
import sys

import cv2
import numpy as np

TEMPLATE = np.array([[38.2946, 51.6963], [73.5318, 51.5014], [56.0252, 71.7366],
                     [41.5493, 92.3655], [70.7299, 92.2041]])


def turn(image, degrees):
    height, width = image.shape[:2]
    centre = (width / 2, height / 2)
    # OpenCV's positive angle turns counterclockwise as shown.
    matrix = cv2.getRotationMatrix2D(centre, -degrees, 1.0)
    cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
    new_width, new_height = int(round(height * sin + width * cos)), int(round(height * cos + width * sin))
    matrix[0, 2] += new_width / 2 - centre[0]
    matrix[1, 2] += new_height / 2 - centre[1]
    return cv2.warpAffine(image, matrix, (new_width, new_height), borderMode=cv2.BORDER_REPLICATE)


def aligned_crop(image, size, landmarks):
    template = TEMPLATE * size / 112.0
    matrix, _ = cv2.estimateAffinePartial2D(np.array(landmarks, dtype=np.float64), template,
                                            method=cv2.RANSAC, ransacReprojThreshold=1e9)
    return cv2.warpAffine(image, matrix, (size, size), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))


def main(arguments):
    command = arguments[0]
    if command == "turn":
        cv2.imwrite(arguments[3], turn(cv2.imread(arguments[1]), float(arguments[2])))
    elif command == "flip":
        cv2.imwrite(arguments[2], cv2.flip(cv2.imread(arguments[1]), 1))
    elif command == "blur":
        cv2.imwrite(arguments[3], cv2.GaussianBlur(cv2.imread(arguments[1]), (0, 0), float(arguments[2])))
    elif command == "shrink":
        factor = float(arguments[2])
        cv2.imwrite(arguments[3], cv2.resize(cv2.imread(arguments[1]), None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA))
    elif command == "blurred-clip":
        image, frames, sharp = cv2.imread(arguments[1]), int(arguments[2]), int(arguments[3])
        height, width = image.shape[:2]
        writer = cv2.VideoWriter(arguments[4], cv2.VideoWriter_fourcc(*"MJPG"), 10, (width, height))
        for index in range(frames):
            writer.write(image if index == sharp else cv2.GaussianBlur(image, (0, 0), 1.5))
        writer.release()
    elif command == "transparent":
        cv2.imwrite(arguments[1], np.zeros((100, 100, 4), np.uint8))
    elif command == "pixels":
        image, numbers = cv2.imread(arguments[1]), list(map(float, arguments[2:]))
        points = zip(numbers[0::2], numbers[1::2])
        print(json.dumps({"pixels": [image[int(y), int(x)].tolist() for x, y in points]}))
    elif command == "aligned-crop":
        image, size, landmarks = cv2.imread(arguments[1]), int(arguments[2]), json.loads(arguments[3])
        return compare(aligned_crop(image, size, landmarks), cv2.imread(arguments[4]))
    elif command == "difference":
        return compare(cv2.imread(arguments[1]), cv2.imread(arguments[2]))
    elif command == "box-crop":
        x, y, w, h = map(int, arguments[2:6])
        return compare(cv2.imread(arguments[1])[y:y + h, x:x + w], cv2.imread(arguments[6]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


def compare(reference, crop):
    """Prints the mean absolute difference of `crop` from `reference`; 1 when their sizes differ."""
    if crop is None or crop.shape != reference.shape:
        print(json.dumps({"mean_difference": None, "size": None if crop is None else [crop.shape[1], crop.shape[0]]}))
        return 1
    difference = np.abs(crop.astype(np.int16) - reference.astype(np.int16)).mean()
    print(json.dumps({"mean_difference": float(difference), "size": [crop.shape[1], crop.shape[0]]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
