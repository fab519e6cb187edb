#!/usr/bin/python3
"""The people panel's clip: three photographs from ../shared/data/faces/face_recognition_examples, each letterboxed into
640x480 and shown for 20 frames, then 8 black frames (so that each appearance is a track of its own), at 10 frames/s,
MJPEG in AVI. Obama and Biden (enrolled by the test from other photographs of theirs) and Kit Harington (not enrolled):
he is in frames 56 to 75, and again every 84 frames when played with --loop.

    people_clip.py FACES_DIR OUT.avi
"""
import sys

import cv2
import numpy as np

WIDTH, HEIGHT, FPS, SHOWN, BLACK = 640, 480, 10, 20, 8
PHOTOS = ["obama/obama2.jpg", "biden/biden2.jpg", "kit_harington/test_johnsnow1.jpg"]


def main(faces, out):
    writer = cv2.VideoWriter(out, cv2.VideoWriter_fourcc(*"MJPG"), FPS, (WIDTH, HEIGHT))
    black = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    for photo in PHOTOS:
        image = cv2.imread(f"{faces}/{photo}")
        scale = min(WIDTH / image.shape[1], HEIGHT / image.shape[0])
        image = cv2.resize(image, (int(image.shape[1] * scale), int(image.shape[0] * scale)), interpolation=cv2.INTER_AREA)
        frame = black.copy()
        y, x = (HEIGHT - image.shape[0]) // 2, (WIDTH - image.shape[1]) // 2
        frame[y:y + image.shape[0], x:x + image.shape[1]] = image
        for _ in range(SHOWN):
            writer.write(frame)
        for _ in range(BLACK):
            writer.write(black)
    writer.release()


if __name__ == "__main__":
    main(*sys.argv[1:])
