// SPDX-License-Identifier: LGPL-2.1-or-later
// The sftp:// worker's process.
#include "sftpworker.h"

#include <csignal>

int main(int argc, char **argv)
{
    // Writes to a pipe whose reader is gone (ssh ended) must fail, not end the worker.
    std::signal(SIGPIPE, SIG_IGN);
    Qvfs::SftpWorker worker;
    return worker.exec(argc, argv);
}
