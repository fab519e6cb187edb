#!/usr/bin/python3
"""Draws the overlay fixtures with OpenCV (python3-opencv): run from this folder to remake them.

sunglasses.png (300x120, transparent but for the glasses): round lenses centred at 30% and 70% across
and 40% down, where --overlay puts the eyes by default; lenses (20, 20, 20) at alpha 235, frame and
bridge opaque black.
mustache.png (200x60): a dark brown mustache whose bottom edge's 25% and 75% points sit on the mouth
corners with --overlay-anchor mouth.
"""
import cv2
import numpy as np

glasses = np.zeros((120, 300, 4), np.uint8)
for centre in ((90, 48), (210, 48)):
    cv2.circle(glasses, centre, 42, (20, 20, 20, 235), -1, cv2.LINE_AA)
    cv2.circle(glasses, centre, 42, (0, 0, 0, 255), 5, cv2.LINE_AA)
cv2.line(glasses, (132, 44), (168, 44), (0, 0, 0, 255), 6, cv2.LINE_AA)
cv2.line(glasses, (48, 40), (4, 30), (0, 0, 0, 255), 6, cv2.LINE_AA)
cv2.line(glasses, (252, 40), (296, 30), (0, 0, 0, 255), 6, cv2.LINE_AA)
cv2.imwrite("sunglasses.png", glasses)

mustache = np.zeros((60, 200, 4), np.uint8)
for side in (-1, 1):
    points = np.array([[100, 22], [100 + side * 40, 8], [100 + side * 85, 30], [100 + side * 96, 52],
                       [100 + side * 60, 40], [100, 48]], np.int32)
    cv2.fillPoly(mustache, [points], (20, 40, 70, 255), cv2.LINE_AA)
cv2.imwrite("mustache.png", mustache)
