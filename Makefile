# facecam: `make demo` sets up, builds and runs on the bundled fixtures; `make test` runs every test.
SWIFT ?= swift
PYTHON := /usr/bin/python3
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BUILD := .build/debug
FACECAM := $(BUILD)/facecam
DEMO := .build/demo

# What facecam needs to build and run, and what its tests need beside that
# (python3-opencv runs the independent OpenCV reference).
PACKAGES := libopencv-dev opencv-data libv4l-dev libjpeg-dev
TEST_PACKAGES := $(PACKAGES) python3-opencv

.PHONY: all deps test-deps build demo test fixtures clean

all: build

# Installs the Debian packages that are missing: one `apt-get update`, then one `apt-get install`.
define install-missing
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:" $$missing; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call install-missing,$(PACKAGES))

test-deps:
	$(call install-missing,$(TEST_PACKAGES))

build: deps
	$(SWIFT) build

demo: build
	@rm -rf $(DEMO) && mkdir -p $(DEMO)
	@echo "== the fixture photographs, as text"
	$(FACECAM) detect --format text Fixtures/images
	@echo "== one portrait stored in each of the 8 EXIF orientations, made upright, as JSON Lines"
	@for k in 1 2 3 4 5 6 7 8; do \
		$(FACECAM) detect --orientation $$k --annotate $(DEMO)/orientations Fixtures/orientations/portrait-$$k.jpg || exit 1; \
	done
	@echo "== a 640x360 preview of the orientation-6 portrait, mirrored, with each gravity"
	@for g in aspect fill resize; do \
		$(FACECAM) detect --orientation right --mirror --preview 640x360 --gravity $$g \
			--annotate $(DEMO)/gravity-$$g Fixtures/orientations/portrait-6.jpg || exit 1; \
	done
	@echo "== annotated JPEGs (faces outlined in green) are in $(DEMO):"
	@find $(DEMO) -name '*.jpg' | sort

test: test-deps
	$(PYTHON) Tests/Reference/opencv_faces.py check Fixtures
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Rebuilds Fixtures/ from ../shared/fixture-sources and recomputes the expectations with OpenCV.
fixtures: test-deps
	$(PYTHON) Tests/Reference/opencv_faces.py fixtures ../shared/fixture-sources Fixtures

clean:
	rm -rf .build
