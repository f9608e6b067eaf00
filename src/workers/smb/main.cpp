// SPDX-License-Identifier: LGPL-2.1-or-later
// The smb:// worker's process, or one of its change notifiers (smbnotifier_p.h).
#include "smbnotifier_p.h"
#include "smbworker.h"

#include <csignal>
#include <cstring>

int main(int argc, char **argv)
{
    // A write to a connection the server closed must fail, not end the worker.
    std::signal(SIGPIPE, SIG_IGN);
    if (argc == 2 && std::strcmp(argv[1], Qvfs::Smb::Notifier::Argument) == 0)
        return Qvfs::Smb::Notifier::run();
    Qvfs::SmbWorker worker;
    return worker.exec(argc, argv);
}
