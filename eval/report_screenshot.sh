#!/usr/bin/env bash
# Renders a report.html in headless Chromium and writes a PNG screenshot, to check that the
# report opens cleanly in a browser.
#
#   eval/report_screenshot.sh REPORT_DIR [OUT.png]      # screenshot REPORT_DIR/report.html
#   eval/report_screenshot.sh --fixture DIR [OUT.png]   # first write the test fixture report
#
# FRAGMENT=... opens the page at report.html#FRAGMENT, `&`-separated parts: `hover=METHOD@T`
# shows that point's tooltip, `pick=METHOD@T` that run's errors, `focus=ID` starts the page
# at element ID (`errors`: the error analysis). Headless Chromium cannot scroll before it
# shoots, so use focus= rather than scrolling, e.g.
#   FRAGMENT='pick=lsh@0.8&focus=errors' eval/report_screenshot.sh out/demo errors.png
# WINDOW=W,H sets the window (default 1280,2400).
#
# Installs chromium with apt-get when no chromium/chrome binary is found.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--fixture" ]; then
  dir=${2:?usage: $0 --fixture DIR [OUT.png]}
  out=${3:-$dir/report.png}
  mkdir -p "$dir"
  FIMDUP_REPORT_OUT=$(cd "$dir" && pwd) cargo test --release --test it -- \
    --ignored report_files::fixture_report_for_screenshot >/dev/null
else
  dir=${1:?usage: $0 REPORT_DIR [OUT.png]}
  out=${2:-$dir/report.png}
fi
html=$(cd "$dir" && pwd)/report.html
[ -f "$html" ] || { echo "no $html" >&2; exit 1; }

browser=""
for b in chromium chromium-browser google-chrome chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
  echo "installing chromium (apt-get)" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  browser=chromium
fi

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
out_abs=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --hide-scrollbars \
  --screenshot="$out_abs" --window-size="${WINDOW:-1280,2400}" "file://$html${FRAGMENT:+#$FRAGMENT}" >/dev/null 2>&1
[ -s "$out_abs" ] || { echo "no screenshot written" >&2; exit 1; }
echo "$out_abs"
