// SPDX-License-Identifier: LGPL-2.1-or-later
// The trash:/ worker's process.
#include "trashworker.h"

#include <csignal>

int main(int argc, char **argv)
{
    std::signal(SIGXFSZ, SIG_IGN);
    std::signal(SIGPIPE, SIG_IGN);
    Qvfs::TrashWorker worker;
    return worker.exec(argc, argv);
}
