// SPDX-License-Identifier: LGPL-2.1-or-later
// The smb:// worker's process.
#include "smbworker.h"

#include <csignal>

int main(int argc, char **argv)
{
    // A write to a connection the server closed must fail, not end the worker.
    std::signal(SIGPIPE, SIG_IGN);
    Qvfs::SmbWorker worker;
    return worker.exec(argc, argv);
}
