// SPDX-License-Identifier: LGPL-2.1-or-later
// The http, https and WebDAV worker's process.
#include "httpworker.h"

#include <csignal>

int main(int argc, char **argv)
{
    std::signal(SIGPIPE, SIG_IGN);
    Qvfs::HttpWorker worker;
    return worker.exec(argc, argv);
}
