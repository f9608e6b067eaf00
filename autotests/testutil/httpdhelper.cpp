// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs-test-httpd [nginx|apache]: runs an HttpServerFixture (httpserverfixture.h) in a
// process of its own that is not a child of the test, for tests that check that they
// leave no child process behind (the conformance suite: the web server would count as
// one of the test's children otherwise).
//
// The program forks at once and the first process exits; the second one, reparented,
// starts the server and writes one line to standard output:
//
//   ok PORT HTTPSPORT OTHERPORT ROOT   the ports (HTTPSPORT 0 for apache) and the served
//                                      folder (raw bytes, no spaces: under $TMPDIR)
//   error WHY                          it could not start (WHY: the reason, one line)
//
// then waits until its standard input ends (the test closed it, or went away) or a
// SIGTERM, SIGINT or SIGHUP comes, stops the server (removing every file it made) and
// exits, which closes standard output.
#include "httpserverfixture.h"

#include <QCoreApplication>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <unistd.h>

int main(int argc, char **argv)
{
    const pid_t pid = ::fork();
    if (pid < 0)
        return 1;
    if (pid > 0)
        return 0; // the test reaps this one; the server lives on in the child
    ::setsid(); // no signal to the test's process group reaches the server

    QCoreApplication app(argc, argv);
    const bool apache = argc > 1 && std::strcmp(argv[1], "apache") == 0;
    HttpServerFixture server(apache ? HttpServerFixture::Server::Apache : HttpServerFixture::Server::Nginx);
    if (!server.start()) {
        std::printf("error %s\n", qPrintable(server.errorString().simplified()));
        std::fflush(stdout);
        return 1;
    }
    std::printf("ok %d %d %d %s\n", server.port(), server.httpsPort(), server.otherPort(), server.root().constData());
    std::fflush(stdout);
    // A signal interrupts the read (no SA_RESTART) instead of ending the process with the
    // server left running.
    static volatile std::sig_atomic_t stopped = 0;
    struct sigaction sa = {};
    sa.sa_handler = [](int) { stopped = 1; };
    for (int sig : { SIGTERM, SIGINT, SIGHUP })
        ::sigaction(sig, &sa, nullptr);
    char buf[256];
    while (!stopped && ::read(STDIN_FILENO, buf, sizeof buf) > 0) { }
    server.stop();
    return 0;
}
