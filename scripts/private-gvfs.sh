#!/usr/bin/env bash
# private-gvfs.sh [--dir DIR] [COMMAND...]
#
# GVfs's trash backend, for the trash tests and tests/trash_bench.sh: `gio trash --list`,
# `--restore` and `--empty` go through gvfsd, which a minimal Debian 12 lacks and whose
# package would pull a systemd upgrade. Debian's gvfs packages are downloaded
# (apt-get download) and unpacked into DIR (default /var/cache/qvfs-tests/gvfs) once;
# nothing is installed. With COMMAND, runs it on a private D-Bus session beside that
# gvfsd (stopped afterwards, by its pid; QVFS_PRIVATE_GVFSD_PID tells the command) and
# exits with its status. Reads no file but itself: it also runs from standard input
# (`bash -s -- [--dir DIR] COMMAND...`), as a user who cannot reach the checkout.
set -euo pipefail
dir=/var/cache/qvfs-tests/gvfs
if [[ ${1:-} == --dir ]]; then
    dir=$2
    shift 2
fi
if [[ ! -x $dir/root/usr/libexec/gvfsd-trash ]]; then
    rm -rf "$dir"
    mkdir -p "$dir/debs"
    chmod 777 "$dir/debs" # apt's download user writes there
    (cd "$dir/debs" && apt-get download -qq gvfs gvfs-daemons gvfs-libs gvfs-common \
        libgcr-base-3-1 libsecret-1-0 libgck-1-0 >/dev/null 2>&1) \
        || { echo "private-gvfs.sh: cannot download the gvfs packages" >&2; exit 1; }
    for d in "$dir"/debs/*.deb; do dpkg -x "$d" "$dir/root"; done
    sed -i "s|Exec=/usr/libexec/|Exec=$dir/root/usr/libexec/|" "$dir"/root/usr/share/gvfs/mounts/*.mount
    chmod -R a+rX "$dir" # the tests run it as nobody
fi
(($#)) || exit 0
export QVFS_PRIVATE_GVFS=$dir
exec dbus-run-session -- bash -c '
    root=$QVFS_PRIVATE_GVFS/root
    export GVFS_MOUNTABLE_DIR=$root/usr/share/gvfs/mounts
    export GIO_EXTRA_MODULES=$root/usr/lib/x86_64-linux-gnu/gio/modules
    export LD_LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu/gvfs
    "$root/usr/libexec/gvfsd" --no-fuse >/dev/null 2>&1 &
    gvfsd=$!
    export QVFS_PRIVATE_GVFSD_PID=$gvfsd # for a command that must stop a backend of it
    sleep 0.5
    status=0
    "$@" || status=$?
    kill "$gvfsd" 2>/dev/null || true
    exit $status
' private-gvfs "$@" 2> >(grep -v "fd limit" >&2)
