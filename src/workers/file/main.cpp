// SPDX-License-Identifier: LGPL-2.1-or-later
// The file:// worker's process.
#include "fileworker.h"

#include <csignal>

int main(int argc, char **argv)
{
    // A write past RLIMIT_FSIZE must fail with EFBIG, not kill the worker.
    std::signal(SIGXFSZ, SIG_IGN);
    std::signal(SIGPIPE, SIG_IGN);
    Qvfs::FileWorker worker;
    return worker.exec(argc, argv);
}
