#!/usr/bin/env python3
"""facecam's --format labelstudio, read by Label Studio's own SDK (label-studio-sdk, PyPI).

    labelstudio_reference.py images TASKS.json            each image's boxes in pixels, as the SDK's converter makes them COCO
    labelstudio_reference.py video TASKS.json WIDTH HEIGHT  each keyframe's boxes in pixels (frame from 1), with the track's id

Every prediction is first checked with the SDK's LabelInterface.validate_prediction against the
labelling configurations docs/evaluation.md gives; any error is printed and the exit status is 1.
The SDK's converter reads a task's annotations, never its predictions, whose results have the same
form: each prediction is handed to it as an annotation, its result unchanged. Prints one JSON object.
"""
import contextlib
import json
import os
import sys
import tempfile

from label_studio_sdk.converter import Converter
from label_studio_sdk.label_interface import LabelInterface
from label_studio_sdk._extensions.label_studio_tools.postprocessing.video import extract_key_frames

IMAGE_CONFIG = """<View>
  <Image name="image" value="$image"/>
  <RectangleLabels name="label" toName="image"><Label value="face"/></RectangleLabels>
</View>"""

VIDEO_CONFIG = """<View>
  <Video name="video" value="$video" framerate="12"/>
  <VideoRectangle name="box" toName="video"/>
  <Labels name="videoLabels" toName="video"><Label value="face"/></Labels>
</View>"""


def validated(path, config):
    tasks = json.load(open(path))
    interface = LabelInterface(config)
    errors = [f"task {i} prediction {j}: {e}" for i, task in enumerate(tasks)
              for j, prediction in enumerate(task.get("predictions") or [])
              for e in interface.validate_prediction(prediction, return_errors=True)]
    if errors:
        sys.exit("\n".join(errors))
    return tasks


def images(path):
    tasks = validated(path, IMAGE_CONFIG)
    as_annotations = [{"id": i + 1, "data": task["data"],
                       "annotations": [{"id": j + 1, "result": p["result"], "completed_by": 0}
                                       for j, p in enumerate(task["predictions"])]}
                      for i, task in enumerate(tasks)]
    with tempfile.TemporaryDirectory() as directory:
        source = os.path.join(directory, "tasks.json")
        json.dump(as_annotations, open(source, "w"))
        # No image is looked up or downloaded: sizes come from original_width and original_height.
        converter = Converter(IMAGE_CONFIG, project_dir=None, download_resources=False, local_files_resolver=lambda _: None)
        converter.convert(source, os.path.join(directory, "out"), "COCO", is_dir=False)
        coco = json.load(open(os.path.join(directory, "out", "result.json")))
    names = {image["id"]: os.path.splitext(image["file_name"].split("=")[-1].split("/")[-1])[0] for image in coco["images"]}
    found = {os.path.splitext(task["data"]["image"].split("=")[-1].split("/")[-1])[0]: [] for task in tasks}
    for annotation in coco["annotations"]:
        found[names[annotation["image_id"]]].append(annotation["bbox"])
    return found


def video(path, width, height):
    tasks = validated(path, VIDEO_CONFIG)
    frames = {}
    for task in tasks:
        for prediction in task["predictions"]:
            for region in extract_key_frames(prediction["result"]):
                for key in region["value"]["sequence"]:
                    if not key.get("auto"):
                        frames.setdefault(str(key["frame"]), []).append(
                            [key["x"] * width / 100, key["y"] * height / 100, key["width"] * width / 100,
                             key["height"] * height / 100, region["id"]])
    return frames


def main():
    command, arguments = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if command == "images" and len(arguments) == 1:
        run = lambda: images(arguments[0])
    elif command == "video" and len(arguments) == 3:
        run = lambda: video(arguments[0], float(arguments[1]), float(arguments[2]))
    else:
        sys.exit(__doc__)
    with contextlib.redirect_stdout(sys.stderr):
        result = run()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
