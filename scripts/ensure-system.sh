#!/usr/bin/env bash
# Installs the system packages the service needs (Chromium, nats-server, ffmpeg, fonts) when they are missing.
# Runs apt-get only as root; otherwise says what to install and fails.
set -euo pipefail

missing=()
# The renderer runs Chromium's headless shell (the same engine at half the CPU a render); the full browser
# drives the dashboard in the tests and is the benchmark's baseline.
[ -x /usr/lib/chromium/chromium-headless-shell ] || [ -x "${CHROME_PATH:-/nonexistent}" ] || missing+=(chromium-headless-shell)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || missing+=(nats-server)
# ffmpeg encodes screencasts (its ffprobe checks them in the tests)
{ command -v ffmpeg >/dev/null 2>&1 || [ -x "${FFMPEG_PATH:-/nonexistent}" ]; } && command -v ffprobe >/dev/null 2>&1 || missing+=(ffmpeg)
# fonts so pages render text the same everywhere
[ -d /usr/share/fonts/truetype/dejavu ] || missing+=(fonts-dejavu-core)
# fonts for text in every major script: Noto for Latin, Cyrillic, Greek, Arabic, Hebrew, the Indic scripts and
# Thai (core), Chinese, Japanese and Korean (cjk), and colour emoji
[ -f /usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf ] || missing+=(fonts-noto-core)
[ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] || missing+=(fonts-noto-cjk)
[ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ] || missing+=(fonts-noto-color-emoji)
# the tests read PDFs with poppler's pdffonts, pdfinfo, pdftotext and pdftoppm
command -v pdffonts >/dev/null 2>&1 || missing+=(poppler-utils)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" != "0" ]; then
  echo "Missing system packages: ${missing[*]}" >&2
  echo "Install them with: sudo apt-get install -y ${missing[*]}  (or set CHROME_PATH / FFMPEG_PATH / put nats-server on PATH)" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "Missing system packages: ${missing[*]}, and apt-get is not available to install them." >&2
  exit 1
fi

echo "Installing system packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || { echo "apt-get update failed: cannot install ${missing[*]}" >&2; exit 1; }
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || { echo "apt-get install failed for: ${missing[*]}" >&2; exit 1; }
