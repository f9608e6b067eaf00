// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs-test-sshd: runs an SshdFixture (sshdfixture.h) in a process of its own that is not
// a child of the test, for tests that check that they leave no child process behind (the
// conformance suite: sshd and ssh-agent would count as the test's children otherwise).
//
// The program (FixtureHelper's other side, fixturehelper.h: runFixtureHelper()) forks at
// once and the first process exits: the second one, reparented, starts the fixture (a
// server trusted by its ssh_config, an agent with the key) and writes one line to
// standard output:
//
//   ok PORT DIR CONFIG            the server's port, the fixture's folder (data in
//                                 DIR/data, the agent at DIR/agent.sock), an ssh_config
//   error WHY                     it could not start (WHY: the reason, one line)
//
// then waits until its standard input ends (the test closed it, or went away) or a
// SIGTERM, SIGINT or SIGHUP comes, stops the fixture (removing every file it made) and
// exits, which closes standard output.
#include "fixturehelper.h"
#include "sshdfixture.h"

#include <memory>

int main(int argc, char **argv)
{
    std::unique_ptr<SshdFixture> sshd;
    return QvfsTest::runFixtureHelper(
        argc, argv,
        [&](QString *why) -> QList<QByteArray> {
            sshd = std::make_unique<SshdFixture>();
            if (!sshd->start(why))
                return {};
            return { QByteArray::number(sshd->port()), sshd->dir(),
                sshd->clientConfig(SshdFixture::HostKeyCheck::Trusted) };
        },
        [&] { sshd.reset(); });
}
