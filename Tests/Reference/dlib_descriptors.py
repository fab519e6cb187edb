"""dlib's own face descriptors, the independent reference for facecam's (FaceCamRecognition).

Reads a request from the file named by its one argument (JSON):
  {"image": "frame.ppm", "boxes": [[x, y, width, height], ...],
   "shape_predictor": "...5_face_landmarks.dat", "network": "...resnet_model_v1.dat"}
The image is a binary PPM (P6, 8-bit RGB), so that both sides read the same pixels. For each box,
dlib's Python bindings (PyPI's dlib-bin) place the five points with the shape predictor on
dlib.rectangle(x, y, x + width - 1, y + height - 1) and compute the descriptor with
compute_face_descriptor (150x150 chip, padding 0.25, no jitter), as face_recognition does; then the
same chip (dlib.get_face_chip) mirrored left to right through compute_face_descriptor, and the mean of
the two, which facecam compares.
Prints {"faces": [{"chip": [128 floats], "mirrored": [...], "descriptor": [their mean], "points": [[x, y] x 5]}, ...]}.
"""
import json
import sys

import dlib
import numpy


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    fields, position = [], 0
    while len(fields) < 4:
        while data[position:position + 1].isspace():
            position += 1
        start = position
        while not data[position:position + 1].isspace():
            position += 1
        fields.append(data[start:position])
    if fields[0] != b"P6" or int(fields[3]) != 255:
        sys.exit(f"{path}: not an 8-bit binary PPM")
    width, height = int(fields[1]), int(fields[2])
    pixels = numpy.frombuffer(data, dtype=numpy.uint8, count=width * height * 3, offset=position + 1)
    return numpy.ascontiguousarray(pixels.reshape(height, width, 3))


def main():
    request = json.load(open(sys.argv[1]))
    image = read_ppm(request["image"])
    predictor = dlib.shape_predictor(request["shape_predictor"])
    network = dlib.face_recognition_model_v1(request["network"])
    faces = []
    for x, y, width, height in request["boxes"]:
        shape = predictor(image, dlib.rectangle(x, y, x + width - 1, y + height - 1))
        chip = list(network.compute_face_descriptor(image, shape, 0, 0.25))
        aligned = dlib.get_face_chip(image, shape, size=150, padding=0.25)
        mirrored = list(network.compute_face_descriptor(numpy.ascontiguousarray(aligned[:, ::-1])))
        faces.append({"chip": chip, "mirrored": mirrored, "descriptor": [(a + b) / 2 for a, b in zip(chip, mirrored)],
                      "points": [[shape.part(k).x, shape.part(k).y] for k in range(shape.num_parts)]})
    print(json.dumps({"faces": faces}))


if __name__ == "__main__":
    main()
