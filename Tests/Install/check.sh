#!/usr/bin/env bash
# make test-install: make install and make uninstall into a throwaway DESTDIR, and the .deb installed
# by dpkg into a throwaway root; each installed facecam is run from another directory, and its man
# pages and completions are read by man, bash, zsh and fish.
set -euo pipefail
cd "$(dirname "$0")/../.."
deb=$(realpath "${1:?usage: check.sh FACECAM.deb}")
work=$(mktemp -d /tmp/facecam-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
image=$(realpath Fixtures/images/astronaut.png)
clip=$(realpath Fixtures/video/pan-zoom.avi)
checks=0
fail() { echo "test-install: $*" >&2; exit 1; }
pass() { checks=$((checks + 1)); echo "ok: $*"; }

# An installed facecam under ROOT/PREFIX: it runs from another directory, finds its YuNet and CenterFace models,
# and its man pages and completions are where man and the shells look.
check_installed() {
    local prefix=$1 zsh_dir=$2 what=$3
    (cd "$work" && "$prefix/bin/facecam" --version) | grep -qx "$(sed -n 's/.*facecamVersion = "\(.*\)"/\1/p' Sources/FaceCamCLI/Version.swift)" \
        || fail "$what: facecam --version"
    local record
    record=$(cd "$work" && "$prefix/bin/facecam" detect --detector yunet "$image") || fail "$what: detect --detector yunet"
    echo "$record" | grep -q '"score"' || fail "$what: YuNet found no face: $record"
    record=$(cd "$work" && "$prefix/bin/facecam" detect --detector centerface "$image") || fail "$what: detect --detector centerface"
    echo "$record" | grep -q '"score"' || fail "$what: CenterFace found no face: $record"
    [ -f "$prefix/share/facecam/centerface-LICENSE" ] || fail "$what: CenterFace's licence is not installed"
    pass "$what: facecam runs from another directory and finds its YuNet and CenterFace models"
    (cd "$work" && "$prefix/bin/facecam" --version) | grep -qx "inference: OpenVINO 2026\.4\.1-.* from $prefix/bin/\.\./lib/facecam, OpenCV 4\.6\.0" \
        || fail "$what: facecam --version does not name OpenVINO from $prefix/lib/facecam: $("$prefix/bin/facecam" --version)"
    record=$(cd "$work" && "$prefix/bin/facecam" detect --engine openvino --detector centerface "$image") \
        || fail "$what: detect --engine openvino"
    echo "$record" | grep -q '"score"' || fail "$what: CenterFace on OpenVINO found no face: $record"
    [ -f "$prefix/share/facecam/openvino-LICENSE" ] && [ -f "$prefix/share/facecam/openvino-runtime-third-party-programs.txt" ] \
        || fail "$what: OpenVINO's licence and notices are not installed"
    pass "$what: OpenVINO loads from $prefix/lib/facecam, its licence and notices beside the models"
    record=$(cd "$work" && "$prefix/bin/facecam" video --quiet --detector haar --every 12 "$clip") \
        || fail "$what: video (libFaceCamMedia.so)"
    [ "$(echo "$record" | wc -l)" = 3 ] || fail "$what: video gave not 3 records: $record"
    [ -f "$prefix/lib/facecam/media/libFaceCamMedia.so" ] || fail "$what: libFaceCamMedia.so is not in $prefix/lib/facecam/media"
    pass "$what: a PNG (the photograph above) and a video read through $prefix/lib/facecam/media/libFaceCamMedia.so"
    local gallery="$work/gallery-${what// /-}.sqlite"
    (cd "$work" && "$prefix/bin/facecam" enrol --gallery "$gallery" Collins "$image" 2> /dev/null) || fail "$what: facecam enrol"
    record=$(cd "$work" && "$prefix/bin/facecam" detect --recognize --gallery "$gallery" "$image") || fail "$what: detect --recognize"
    echo "$record" | grep -q '"identity":"Collins"' || fail "$what: --recognize did not name the enrolled face: $record"
    [ -f "$prefix/share/facecam/dlib-models-LICENSE" ] || fail "$what: the dlib models' licence is not installed"
    pass "$what: enrol and --recognize find dlib's models under the prefix, their licence beside them"
    local media="$prefix/lib/facecam/media/libFaceCamMedia.so"
    for file in "$prefix/bin/facecam" "$media"; do
        if readelf -d "$file" | grep -q 'libswift\|libFoundation\|libdispatch\|/opt/swift'; then
            fail "$what: $file needs the Swift runtime's shared libraries"
        fi
    done
    [ "$(nm -D --defined-only "$media" | awk '$3 !~ /^(_edata|_end|__bss_start)$/ { print $3 }')" = cfd_media_entry_points ] \
        || fail "$what: $media exports symbols other than cfd_media_entry_points"
    pass "$what: no Swift runtime library among the needs of the binary and its media library, which exports one table"
    # A page for each command the installed binary lists.
    local pages
    pages=$("$prefix/bin/facecam" --help | sed -n '/^SUBCOMMANDS:/,$ s/^  \([a-z][a-z-]*\)  .*/facecam-\1/p') \
        || fail "$what: facecam --help"
    [ "$(echo "$pages" | wc -w)" -ge 9 ] || fail "$what: facecam --help lists too few commands: $pages"
    for page in facecam $pages; do
        local file
        file=$(ls "$prefix/share/man/man1/$page.1"* 2> /dev/null) || fail "$what: no man page $page"
        MANWIDTH=80 man -l "$file" 2> /dev/null | grep -q "^NAME" || fail "$what: man cannot read $file"
        warnings=$(MANWIDTH=80 man -l "$file" 2>&1 > /dev/null)
        [ -z "$warnings" ] || fail "$what: man warns on $file: $warnings"
    done
    MANWIDTH=80 man -l "$prefix"/share/man/man1/facecam-video.1* | grep -q -- "--shard" || fail "$what: man facecam-video lacks --shard"
    pass "$what: man reads a page for facecam and each command, without a warning"
    bash -c "source /usr/share/bash-completion/bash_completion; source '$prefix/share/bash-completion/completions/facecam'; complete -p facecam" > /dev/null \
        || fail "$what: bash completion does not load"
    zsh -n "$zsh_dir/_facecam" || fail "$what: zsh completion does not parse"
    fish --no-execute "$prefix/share/fish/vendor_completions.d/facecam.fish" || fail "$what: fish completion does not parse"
    pass "$what: bash loads its completion, zsh and fish parse theirs"
}

# make install / make uninstall with DESTDIR and PREFIX.
root=$work/destdir
make --no-print-directory install DESTDIR="$root" PREFIX=/usr/local > "$work/install.log" 2>&1 || { tail "$work/install.log"; fail "make install"; }
check_installed "$root/usr/local" "$root/usr/local/share/zsh/site-functions" "make install"
make --no-print-directory uninstall DESTDIR="$root" PREFIX=/usr/local > /dev/null
left=$(find "$root" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
pass "make uninstall removes every file make install put there"

# The .deb: its Depends name Debian's OpenCV, libv4l and libjpeg packages, each available here.
depends=$(dpkg-deb -f "$deb" Depends)
for library in libopencv-core406 libopencv-videoio406 libv4l-0 libjpeg62-turbo libdlib19.1 libsqlite3-0 libc6; do
    echo "$depends" | grep -q "$library" || fail "Depends lacks $library: $depends"
done
for package in $(echo "$depends" | tr ',' '\n' | sed 's/(.*//; s/|.*//' | tr -d ' '); do
    dpkg-query -W "$package" > /dev/null 2>&1 || fail "Depends names $package, which this machine does not have"
done
pass "the .deb's Depends, computed by dpkg-shlibdeps, name Debian's OpenCV, libv4l and libjpeg packages: $depends"
# highgui (and the Qt it brings) is loaded by live --show only: recommended, never a dependency.
case "$depends" in *highgui*|*qt5*) fail "Depends names highgui or Qt, which only --show needs: $depends" ;; esac
recommends=$(dpkg-deb -f "$deb" Recommends)
[ "$recommends" = libopencv-highgui406 ] || fail "Recommends is '$recommends', not libopencv-highgui406"
pass "the .deb recommends libopencv-highgui406 for --show and depends on no Qt"
debroot=$work/debroot
mkdir -p "$debroot/var/lib/dpkg/info" "$debroot/var/lib/dpkg/updates"
touch "$debroot/var/lib/dpkg/status"
dpkg --root="$debroot" --force-depends --force-script-chrootless -i "$deb" > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i"; }
dpkg --root="$debroot" -s facecam | grep -q "^Status: install ok installed" || fail "dpkg does not list facecam as installed"
check_installed "$debroot/usr" "$debroot/usr/share/zsh/vendor-completions" "the .deb"
dpkg --root="$debroot" -r facecam > /dev/null 2>&1 || fail "dpkg -r"
[ ! -e "$debroot/usr/bin/facecam" ] || fail "dpkg -r left /usr/bin/facecam"
pass "dpkg removes it again"
echo "test-install: $checks checks passed"
