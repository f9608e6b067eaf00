#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Re-extracts the translatable strings of Qvfs and merges them into po/*/qvfs_qt.po.
#
# Strings are marked with QCoreApplication::translate("Qvfs", ...) (libraries and workers)
# and QCoreApplication::translate("qvfs", ...) (command-line client, src/cli). Qt 6's
# lupdate extracts them, lconvert turns them into a gettext template in KDE's *_qt.po
# form (header "X-Qt-Contexts: true", msgctxt "<context>|"), and msgmerge brings each
# catalog up to date: new strings come in untranslated, changed ones as "fuzzy" (not
# used at run time until reviewed), vanished ones are kept as obsolete ("#~").
# ecm_install_po_files_as_qm(po) in the top-level CMakeLists.txt builds the .qm files.
#
# Usage: po/extract.sh [LANG]...     (default: every po/<lang>/ folder)
#        QVFS_POT=file.pot po/extract.sh   also keeps the template
# Needs: qt6-l10n-tools (lupdate, lconvert), gettext (msgmerge, msgfmt).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
catalog=qvfs_qt
sources="src/proto src/core src/models src/cli src/mount src/worker src/workers"

qtbin=${QT_BIN_DIR:-}
if [ -z "$qtbin" ]; then
    for d in /usr/lib/qt6/bin /usr/lib/qt6/libexec "$(qtpaths6 --query QT_INSTALL_BINS 2>/dev/null || true)"; do
        if [ -n "$d" ] && [ -x "$d/lupdate" ]; then qtbin=$d; break; fi
    done
fi
# Not /usr/bin/lupdate: on Debian that is qtchooser's link to Qt 5.
if [ -z "$qtbin" ] || [ ! -x "$qtbin/lupdate" ] || [ ! -x "$qtbin/lconvert" ]; then
    echo "extract.sh: Qt 6 lupdate/lconvert not found (apt install qt6-l10n-tools, or set QT_BIN_DIR)" >&2
    exit 1
fi
for tool in msgmerge msgfmt; do
    command -v "$tool" >/dev/null 2>&1 || { echo "extract.sh: $tool not found (apt install gettext)" >&2; exit 1; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. Extract (paths given relative to the source root, so references read src/...).
cd "$root"
# shellcheck disable=SC2086
"$qtbin/lupdate" -silent -no-obsolete $sources -ts "$tmp/$catalog.ts"
"$qtbin/lconvert" -i "$tmp/$catalog.ts" -o "$tmp/$catalog.pot"
# lupdate writes locations relative to the .ts file; make them relative to the source root.
prefix=$(realpath --relative-to="$tmp" "$root")/
sed -i "/^#: /s|$prefix||g" "$tmp/$catalog.pot"
count=$(grep -c '^msgid ' "$tmp/$catalog.pot")
echo "extract.sh: $((count - 1)) strings in $sources"
if [ -n "${QVFS_POT:-}" ]; then
    cp "$tmp/$catalog.pot" "$QVFS_POT"
fi

# 2. Merge into each catalog (a new language starts from the template).
if [ $# -eq 0 ]; then
    set --
    for d in "$here"/*/; do
        [ -d "$d" ] && set -- "$@" "$(basename "$d")"
    done
fi
for lang in "$@"; do
    po="$here/$lang/$catalog.po"
    if [ ! -f "$po" ]; then
        mkdir -p "$here/$lang"
        msginit --no-translator --no-wrap --locale="$lang" -i "$tmp/$catalog.pot" -o "$po" >/dev/null 2>&1 ||
            cp "$tmp/$catalog.pot" "$po"
        echo "extract.sh: created $po"
    fi
    msgmerge --quiet --update --backup=none --previous "$po" "$tmp/$catalog.pot"
    # Validate: syntax and that every translation keeps the %1, %2... of its original.
    msgfmt --check --statistics -o /dev/null "$po" 2>&1 | sed "s|^|extract.sh: $lang: |"
done
