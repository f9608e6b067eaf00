#!/usr/bin/env bash
# Installs what building and testing Qvfs needs on Debian 12, if it is missing.
# Usage: scripts/setup.sh [--test]   (--test adds what the test suite uses)
set -euo pipefail

# libsmbclient-dev: the smb:// worker; libfuse3-dev: qvfs mount, and fuse3 the fusermount3 it
# needs without root (each built when found: optional, the rest builds without them);
# libssl-dev: the s3 worker's SHA-256 and MD5 of upload bodies through OpenSSL's libcrypto
# (eight times Qt's own SHA-256 here; optional, Qt's is used without it).
packages=(g++ cmake ninja-build pkg-config extra-cmake-modules qt6-base-dev qt6-tools-dev qt6-l10n-tools
          shared-mime-info libsmbclient-dev libfuse3-dev fuse3 libssl-dev)
if [[ "${1:-}" == "--test" ]]; then
    # clang + its runtime: the libFuzzer targets; util-linux: `script` for the pty test;
    # procps: ps/pgrep in fixtures; openssh-server/-client: the sftp tests' real sshd and
    # the ssh/sftp/ssh-agent/ssh-keygen they drive; passwd: useradd/chpasswd for them;
    # nginx + dav-ext, apache2, openssl, curl: the WebDAV and http(s) servers of the http
    # worker's tests (started on 127.0.0.1 by the tests); strace: the file worker's race
    # tests hold one of its system calls (autotests/workerhold.h); rclone: a WebDAV client
    # beside curl in tests/http_benchmark; samba + smbclient: the smb worker's tests' real
    # smbd (started on 127.0.0.1 by autotests/testutil/smbdfixture.cpp) and the client that
    # checks it; e2fsprogs + util-linux's mount: the trash tests' loop-mounted ext4 volumes;
    # libglib2.0-bin (gio), trash-cli, and dbus-daemon (dbus-run-session) for the private gvfsd
    # that gio trash --list/--restore/--empty need (scripts/private-gvfs.sh, unpacked
    # below): the other trash implementations the trash tests and tests/trash_bench.sh
    # hold Qvfs against; sshfs: the peer tests/mount_bench.sh measures qvfs mount beside;
    # radosgw, ceph-mon, ceph-osd, ceph-common: the s3 worker's tests' real S3 server (a
    # single-node Ceph cluster on 127.0.0.1, autotests/testutil/rgwfixture.cpp), with rclone
    # beside it in tests/s3_bench.sh.
    packages+=(clang libclang-rt-14-dev util-linux mount procps python3 openssh-server openssh-client passwd
               nginx libnginx-mod-http-dav-ext apache2 openssl curl strace rclone samba smbclient
               e2fsprogs libglib2.0-bin trash-cli dbus-daemon sshfs radosgw ceph-mon ceph-osd ceph-common)
fi

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=900 \
        --no-install-recommends "${missing[@]}" >/dev/null
fi
if [[ "${1:-}" == "--test" ]]; then
    # GVfs's trash backend, unpacked (not installed) where the trash tests look for it.
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo "$(dirname "$0")/private-gvfs.sh" || echo "setup: no private gvfsd: the gio rows of trashtest will fail" >&2
fi
