// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs-test-httpd [nginx|apache]: runs an HttpServerFixture (httpserverfixture.h) in a
// process of its own that is not a child of the test, for tests that check that they
// leave no child process behind (the conformance suite: the web server would count as
// one of the test's children otherwise).
//
// The program (FixtureHelper's other side, fixturehelper.h: runFixtureHelper()) forks at
// once and the first process exits; the second one, reparented, starts the server and
// writes one line to standard output:
//
//   ok PORT HTTPSPORT OTHERPORT ROOT   the ports (HTTPSPORT 0 for apache) and the served
//                                      folder (raw bytes, no spaces: under $TMPDIR)
//   error WHY                          it could not start (WHY: the reason, one line)
//
// then waits until its standard input ends (the test closed it, or went away) or a
// SIGTERM, SIGINT or SIGHUP comes, stops the server (removing every file it made) and
// exits, which closes standard output.
#include "fixturehelper.h"
#include "httpserverfixture.h"

#include <cstring>
#include <memory>

int main(int argc, char **argv)
{
    const bool apache = argc > 1 && std::strcmp(argv[1], "apache") == 0;
    std::unique_ptr<HttpServerFixture> server;
    return QvfsTest::runFixtureHelper(
        argc, argv,
        [&](QString *why) -> QList<QByteArray> {
            server = std::make_unique<HttpServerFixture>(
                apache ? HttpServerFixture::Server::Apache : HttpServerFixture::Server::Nginx);
            if (!server->start()) {
                *why = server->errorString();
                return {};
            }
            return { QByteArray::number(server->port()), QByteArray::number(server->httpsPort()),
                QByteArray::number(server->otherPort()), server->root() };
        },
        [&] { server.reset(); });
}
