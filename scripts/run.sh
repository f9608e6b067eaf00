#!/usr/bin/env bash
# The main job: installs what is missing, builds, and lists a local folder with the
# `qvfs` client (default: this source tree's src folder).
# Usage: scripts/run.sh [FOLDER]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
"$here/scripts/build.sh"
"$here/${BUILD_DIR:-build}/bin/qvfs" ls -l "${1:-$here/src}"
