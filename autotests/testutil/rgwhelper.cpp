// SPDX-License-Identifier: LGPL-2.1-or-later
// qvfs-test-rgw: runs an RgwFixture (rgwfixture.h) in a process of its own that is not a
// child of the test, for tests that check that they leave no child process behind (the
// conformance suite: the Ceph daemons would count as the test's children otherwise).
//
// The program (FixtureHelper's other side, fixturehelper.h: runFixtureHelper()) forks at
// once and the first process exits: the second one, reparented, starts the fixture and
// writes one line to standard output:
//
//   ok PORT ACCESS SECRET      the S3 endpoint's port on 127.0.0.1 and the user's keys
//   error WHY                  it could not start (WHY: the reason, one line)
//
// then waits until its standard input ends (the test closed it, or went away) or a
// SIGTERM, SIGINT or SIGHUP comes, stops the fixture (the three daemons, by pid, and its
// folder) and exits, which closes standard output.
#include "fixturehelper.h"
#include "rgwfixture.h"

#include <memory>

int main(int argc, char **argv)
{
    std::unique_ptr<QvfsTest::RgwFixture> rgw;
    return QvfsTest::runFixtureHelper(
        argc, argv,
        [&](QString *why) -> QList<QByteArray> {
            rgw = std::make_unique<QvfsTest::RgwFixture>();
            if (!rgw->start(why))
                return {};
            return { QByteArray::number(rgw->port()), rgw->accessKey(), rgw->secretKey() };
        },
        [&] { rgw.reset(); });
}
