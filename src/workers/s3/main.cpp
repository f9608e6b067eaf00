// SPDX-License-Identifier: LGPL-2.1-or-later
// The s3 worker's process.
#include "s3worker.h"

#include <csignal>

int main(int argc, char **argv)
{
    std::signal(SIGPIPE, SIG_IGN);
    Qvfs::S3Worker worker;
    return worker.exec(argc, argv);
}
