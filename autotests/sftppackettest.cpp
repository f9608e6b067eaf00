// SPDX-License-Identifier: LGPL-2.1-or-later
// The sftp engine's reading of foreign bytes, in-process: SFTP packets (bounds of every
// length, counts, leftovers), the stream framing, and what ssh says on stderr and
// through askpass.
#include "error.h"
#include "sftppacket_p.h"
#include "sshmessages_p.h"

#include <QTest>

#include <limits>

using namespace Qvfs;
using namespace Qvfs::Sftp;
namespace P = Qvfs::Sftp::Packet;

Q_DECLARE_METATYPE(Session::Failure)
Q_DECLARE_METATYPE(Session::Prompt::Kind)

namespace
{

QByteArray be32(quint32 v)
{
    QByteArray b(4, '\0');
    b[0] = char(v >> 24);
    b[1] = char(v >> 16);
    b[2] = char(v >> 8);
    b[3] = char(v);
    return b;
}

QByteArray str(QByteArrayView s)
{
    return be32(quint32(s.size())) + s.toByteArray();
}

// A reply packet without the length field: type, id, body.
QByteArray reply(quint8 type, quint32 id, const QByteArray &body)
{
    return QByteArray(1, char(type)) + be32(id) + body;
}

QByteArray framed(const QByteArray &packet)
{
    return be32(quint32(packet.size())) + packet;
}

} // namespace

class SftpPacketTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void writerRoundTrip()
    {
        QByteArray out;
        P::Writer w(out);
        Attributes a;
        a.flags = Attributes::Size | Attributes::UidGid | Attributes::Permissions | Attributes::AccessModTime
            | Attributes::Extended;
        a.size = 0x123456789aULL;
        a.uid = 1000;
        a.gid = 100;
        a.permissions = 0100644;
        a.atime = 1;
        a.mtime = 0xfffffffe;
        a.extended = { { "x@y", QByteArray("\0\xff", 2) } };
        w.begin(P::Attrs, 7);
        w.attrs(a);
        w.end();
        P::InputBuffer in;
        qsizetype room = 0;
        char *p = in.writeSpace(&room);
        QVERIFY(room >= out.size());
        std::memcpy(p, out.constData(), size_t(out.size()));
        in.commit(out.size());
        QByteArrayView packet;
        QCOMPARE(in.next(&packet), P::InputBuffer::Next::Packet);
        P::Reply r;
        QVERIFY(P::parseReply(packet, &r));
        QCOMPARE(r.type, quint8(P::Attrs));
        QCOMPARE(r.id, 7u);
        QCOMPARE(r.attrs.flags, a.flags);
        QCOMPARE(r.attrs.size, a.size);
        QCOMPARE(r.attrs.uid, a.uid);
        QCOMPARE(r.attrs.gid, a.gid);
        QCOMPARE(r.attrs.permissions, a.permissions);
        QCOMPARE(r.attrs.atime, a.atime);
        QCOMPARE(r.attrs.mtime, a.mtime);
        QCOMPARE(r.attrs.extended, a.extended);
        QCOMPARE(in.next(&packet), P::InputBuffer::Next::NeedMore);

        // A string filled in place (WRITE's data).
        out.clear();
        w.begin(P::Write, 9);
        w.string("handle");
        w.u64(5);
        char *data = w.beginString(100);
        std::memcpy(data, "abc", 3);
        w.commitString(3);
        w.end();
        QCOMPARE(out, framed(QByteArray(1, char(P::Write)) + be32(9) + str("handle") + be32(0) + be32(5) + str("abc")));
    }

    void sizesPastInt64()
    {
        // A server may claim any 64-bit size: 2^64 - 1 is clamped to INT64_MAX, never a
        // negative figure, and totals stay there instead of wrapping (`du` printed
        // -4611686018427387904 for two files of 2^62).
        const QByteArray huge = be32(0xffffffffu) + be32(0xffffffffu);
        const QByteArray regular = be32(0100644);
        P::Reply r;
        QVERIFY(
            P::parseReply(reply(P::Attrs, 5, be32(Attributes::Size | Attributes::Permissions) + huge + regular), &r));
        QCOMPARE(r.attrs.signedSize(), std::numeric_limits<qint64>::max());
        QCOMPARE(r.attrs.bytesForTotals(), std::numeric_limits<qint64>::max());
        QVERIFY(
            P::parseReply(reply(P::Attrs, 5,
                              be32(Attributes::Size | Attributes::Permissions) + be32(0x40000000u) + be32(0) + regular),
                &r));
        QCOMPARE(r.attrs.signedSize(), qint64(1) << 62);
        const qint64 twice = addBytes(addBytes(0, r.attrs.bytesForTotals()), r.attrs.bytesForTotals());
        QCOMPARE(twice, std::numeric_limits<qint64>::max()); // 2^63 does not fit
        QCOMPARE(addBytes(twice, 1), std::numeric_limits<qint64>::max());
        QVERIFY(P::parseReply(reply(P::Attrs, 5, be32(Attributes::Permissions) + regular), &r));
        QCOMPARE(r.attrs.signedSize(), qint64(-1));
        QCOMPARE(r.attrs.bytesForTotals(), qint64(0));
    }

    void replies_data()
    {
        QTest::addColumn<QByteArray>("packet");
        QTest::addColumn<bool>("valid");
        QTest::newRow("status full") << reply(P::Status, 1, be32(2) + str("No such file") + str("en")) << true;
        QTest::newRow("status bare") << reply(P::Status, 1, be32(0)) << true;
        QTest::newRow("status no lang") << reply(P::Status, 1, be32(4) + str("Failure")) << true;
        QTest::newRow("status trailing") << reply(P::Status, 1, be32(0) + str("") + str("") + "x") << false;
        QTest::newRow("status short") << reply(P::Status, 1, QByteArray("\0\0", 2)) << false;
        QTest::newRow("handle") << reply(P::Handle, 2, str("h1")) << true;
        QTest::newRow("handle 256") << reply(P::Handle, 2, str(QByteArray(256, 'h'))) << true;
        QTest::newRow("handle 257") << reply(P::Handle, 2, str(QByteArray(257, 'h'))) << false;
        QTest::newRow("handle past end") << reply(P::Handle, 2, be32(10) + "abc") << false;
        QTest::newRow("handle huge length") << reply(P::Handle, 2, be32(0xffffffffu)) << false;
        QTest::newRow("data") << reply(P::Data, 3, str(QByteArray(1000, 'd'))) << true;
        QTest::newRow("data empty") << reply(P::Data, 3, str({})) << true;
        QTest::newRow("data huge length") << reply(P::Data, 3, be32(0x7fffffffu) + "abc") << false;
        QTest::newRow("data trailing") << reply(P::Data, 3, str("x") + "y") << false;
        QTest::newRow("name one") << reply(P::Name, 4, be32(1) + str("f") + str("-rw f") + be32(0)) << true;
        QTest::newRow("name zero") << reply(P::Name, 4, be32(0)) << true;
        QTest::newRow("name count too big") << reply(P::Name, 4, be32(2) + str("f") + str("l") + be32(0)) << false;
        QTest::newRow("name count huge") << reply(P::Name, 4, be32(0x40000000u)) << false;
        QTest::newRow("name bad attrs") << reply(P::Name, 4, be32(1) + str("f") + str("l") + be32(1) + be32(0))
                                        << false;
        QTest::newRow("attrs extended count huge")
            << reply(P::Attrs, 5, be32(Attributes::Extended) + be32(0x10000000u)) << false;
        QTest::newRow("attrs extended") << reply(
            P::Attrs, 5, be32(Attributes::Extended) + be32(1) + str("t") + str("v"))
                                        << true;
        QTest::newRow("attrs truncated") << reply(P::Attrs, 5, be32(Attributes::Size) + be32(0)) << false;
        QTest::newRow("extended reply") << reply(P::ExtendedReply, 6, "anything") << true;
        QTest::newRow("unknown type") << reply(99, 6, {}) << false;
        QTest::newRow("request type") << reply(P::Open, 6, {}) << false;
        QTest::newRow("no id") << QByteArray(1, char(P::Status)) << false;
        QTest::newRow("empty") << QByteArray() << false;
    }

    void replies()
    {
        QFETCH(QByteArray, packet);
        QFETCH(bool, valid);
        // An exact-size copy, so that a sanitizer sees any read past the end.
        const QByteArray exact(packet.constData(), packet.size());
        P::Reply r;
        QCOMPARE(P::parseReply(exact, &r), valid);
        if (!valid || r.type != P::Name)
            return;
        P::NameReader names(r.names, r.nameCount);
        QByteArrayView name, longName;
        Attributes a;
        quint32 n = 0;
        while (names.next(&name, &longName, &a))
            ++n;
        QCOMPARE(n, r.nameCount);
    }

    void version_data()
    {
        QTest::addColumn<QByteArray>("packet");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<int>("extensions");
        const QByteArray v = QByteArray(1, char(P::Version)) + be32(3);
        QTest::newRow("plain") << v << true << 0;
        QTest::newRow("openssh") << v + str("posix-rename@openssh.com") + str("1") + str("limits@openssh.com")
                + str("1") << true
                                 << 2;
        QTest::newRow("half pair") << v + str("posix-rename@openssh.com") << false << 0;
        QTest::newRow("long name") << v + str(QByteArray(5000, 'n')) + str("1") << false << 0;
        QTest::newRow("wrong type") << QByteArray(1, char(P::Status)) + be32(3) << false << 0;
        QByteArray many = v;
        for (int i = 0; i < 300; ++i)
            many += str("e") + str("1");
        QTest::newRow("too many") << many << false << 0;
    }

    void version()
    {
        QFETCH(QByteArray, packet);
        QFETCH(bool, valid);
        QFETCH(int, extensions);
        P::VersionInfo info;
        QCOMPARE(P::parseVersion(packet, &info), valid);
        if (valid) {
            QCOMPARE(info.version, 3u);
            QCOMPARE(info.extensions.size(), extensions);
            if (extensions)
                QVERIFY(info.hasExtension("limits@openssh.com", "1"));
            QVERIFY(!info.hasExtension("limits@openssh.com", "2"));
        }
    }

    void extendedBodies()
    {
        Limits l;
        QByteArray body;
        for (quint32 v : { 0u, 34000u, 0u, 261120u, 0u, 261120u, 0u, 1024u })
            body += be32(v);
        QVERIFY(P::parseLimits(body, &l));
        QCOMPARE(l.maxPacketLength, quint64(34000));
        QCOMPARE(l.maxReadLength, quint64(261120));
        QCOMPARE(l.maxOpenHandles, quint64(1024));
        QVERIFY(!P::parseLimits(body.left(31), &l));
        StatVfs s;
        QVERIFY(!P::parseStatVfs(body, &s));
        QVERIFY(P::parseStatVfs(QByteArray(body + body + body.left(24)), &s));
        QCOMPARE(s.blocks, quint64(261120));

        // users-groups-by-id@openssh.com: a string of strings per kind
        const auto str = [](const QByteArray &b) -> QByteArray { return be32(quint32(b.size())) + b; };
        const QByteArray names = str(str("root") + str("")) + str(str("wheel"));
        QList<QByteArray> users, groups;
        QVERIFY(P::parseUserGroupNames(names, 2, 1, &users, &groups));
        QCOMPARE(users, (QList<QByteArray> { "root", "" }));
        QCOMPARE(groups, QList<QByteArray> { "wheel" });
        QVERIFY(!P::parseUserGroupNames(names, 3, 1, &users, &groups)); // fewer names than ids
        QVERIFY(!P::parseUserGroupNames(names, 1, 1, &users, &groups)); // more
        QVERIFY(!P::parseUserGroupNames(QByteArray(names + "x"), 2, 1, &users, &groups));
        QVERIFY(!P::parseUserGroupNames(QByteArray(str(str(QByteArray(257, 'u'))) + str({})), 1, 0, &users, &groups));
    }

    void framing()
    {
        // Packets split at every byte, and a length over the maximum.
        QByteArray stream;
        for (int i = 0; i < 5; ++i)
            stream += framed(reply(P::Data, quint32(i), str(QByteArray(i * 1000, char('a' + i)))));
        for (qsizetype step : { qsizetype(1), qsizetype(7), qsizetype(4096), stream.size() }) {
            P::InputBuffer in(64);
            int seen = 0;
            qsizetype pos = 0;
            while (pos < stream.size()) {
                qsizetype room = 0;
                char *p = in.writeSpace(&room);
                const qsizetype n = qMin(qMin(step, room), stream.size() - pos);
                std::memcpy(p, stream.constData() + pos, size_t(n));
                in.commit(n);
                pos += n;
                QByteArrayView packet;
                while (in.next(&packet) == P::InputBuffer::Next::Packet) {
                    P::Reply r;
                    QVERIFY(P::parseReply(packet, &r));
                    QCOMPARE(r.id, quint32(seen));
                    QCOMPARE(r.data.size(), qsizetype(seen * 1000));
                    ++seen;
                }
            }
            QCOMPARE(seen, 5);
            QCOMPARE(in.buffered(), qsizetype(0));
        }
        for (quint32 bad : { 0u, P::MaxIncomingPacket + 1, 0xffffffffu }) {
            P::InputBuffer in;
            qsizetype room = 0;
            char *p = in.writeSpace(&room);
            const QByteArray b = be32(bad);
            std::memcpy(p, b.constData(), 4);
            in.commit(4);
            QByteArrayView packet;
            QCOMPARE(in.next(&packet), P::InputBuffer::Next::Malformed);
        }
    }

    void stderrLines_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<Session::Failure>("failure");
        using F = Session::Failure;
        QTest::newRow("changed banner") << QByteArray("@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @")
                                        << F::HostKeyChanged;
        QTest::newRow("changed strict") << QByteArray(
            "Host key for [127.0.0.1]:2222 has changed and you have requested strict checking.")
                                        << F::HostKeyChanged;
        QTest::newRow("verification") << QByteArray("Host key verification failed.") << F::HostKeyUnknown;
        QTest::newRow("strict unknown") << QByteArray(
            "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.")
                                        << F::HostKeyUnknown;
        QTest::newRow("denied") << QByteArray("root@127.0.0.1: Permission denied (publickey,password).")
                                << F::AuthenticationFailed;
        QTest::newRow("denied again") << QByteArray("Permission denied, please try again.") << F::None;
        QTest::newRow("resolve") << QByteArray(
            "ssh: Could not resolve hostname nowhere.invalid: Name or service not known")
                                 << F::HostNotFound;
        QTest::newRow("refused") << QByteArray("ssh: connect to host 127.0.0.1 port 1: Connection refused")
                                 << F::ConnectionRefused;
        QTest::newRow("connect timeout") << QByteArray("ssh: connect to host 10.0.0.1 port 22: Connection timed out")
                                         << F::TimedOut;
        QTest::newRow("banner timeout") << QByteArray("Connection timed out during banner exchange") << F::TimedOut;
        QTest::newRow("alive timeout") << QByteArray("Timeout, server 127.0.0.1 not responding.") << F::TimedOut;
        QTest::newRow("subsystem") << QByteArray("subsystem request failed on channel 0") << F::NoSftpServer;
        QTest::newRow("closed") << QByteArray("Connection closed by 127.0.0.1 port 2222") << F::ConnectionLost;
        QTest::newRow("added") << QByteArray("Warning: Permanently added '[127.0.0.1]:2222' (ED25519) to the list of "
                                             "known hosts.")
                               << F::None;
    }

    void stderrLines()
    {
        QFETCH(QByteArray, line);
        QFETCH(Session::Failure, failure);
        QVERIFY(SshMessages::classifyStderrLine(line) == failure);
    }

    void prompts_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("hint");
        QTest::addColumn<bool>("ask");
        QTest::addColumn<Session::Prompt::Kind>("kind");
        QTest::addColumn<QString>("detail");
        using K = Session::Prompt;
        QTest::newRow("host key 9.2") << QByteArray(
            "The authenticity of host '[127.0.0.1]:2222 ([127.0.0.1]:2222)' can't be established.\n"
            "ED25519 key fingerprint is SHA256:abcDEF+/012.\n"
            "This key is not known by any other names.\n"
            "Are you sure you want to continue connecting (yes/no/[fingerprint])? ")
                                      << QByteArray() << true << K::UnknownHostKey
                                      << QStringLiteral("SHA256:abcDEF+/012");
        QTest::newRow("host key newer") << QByteArray(
            "The authenticity of host 'h (1.2.3.4)' can't be established.\n"
            "ECDSA key fingerprint is: SHA256:xyz\n"
            "Are you sure you want to continue connecting (yes/no/[fingerprint])? ")
                                        << QByteArray() << true << K::UnknownHostKey << QStringLiteral("SHA256:xyz");
        QTest::newRow("ip key differs") << QByteArray(
            "Warning: the ED25519 host key for 'h' differs from the key for the IP address '1.2.3.4'\n"
            "Offending key for IP in /k:1\nAre you sure you want to continue connecting (yes/no)? ")
                                        << QByteArray() << false << K::Other << QString();
        QTest::newRow("password") << QByteArray("bob@host's password: ") << QByteArray() << true << K::Password
                                  << QString();
        QTest::newRow("kbdint password") << QByteArray("(bob@host) Password: ") << QByteArray() << true << K::Password
                                         << QString();
        QTest::newRow("kbdint code") << QByteArray("(bob@host) Verification code: ") << QByteArray() << true << K::Other
                                     << QString();
        QTest::newRow("passphrase") << QByteArray("Enter passphrase for key '/home/bob/.ssh/id_ed25519': ")
                                    << QByteArray() << true << K::Passphrase
                                    << QStringLiteral("/home/bob/.ssh/id_ed25519");
        QTest::newRow("expired") << QByteArray("Enter bob@host's old password: ") << QByteArray() << true << K::Other
                                 << QString();
        QTest::newRow("confirm") << QByteArray("Allow use of key?") << QByteArray("confirm") << true << K::Other
                                 << QString();
    }

    void prompts()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, hint);
        QFETCH(bool, ask);
        QFETCH(Session::Prompt::Kind, kind);
        QFETCH(QString, detail);
        Session::Prompt p;
        QCOMPARE(SshMessages::classifyPrompt(text, hint, &p), ask);
        if (!ask)
            return;
        QCOMPARE(p.kind, kind);
        QCOMPARE(p.text, QString::fromUtf8(text));
        if (kind == Session::Prompt::UnknownHostKey)
            QCOMPARE(p.fingerprint, detail);
        if (kind == Session::Prompt::Passphrase)
            QCOMPARE(p.keyFile, detail);
        QVERIFY(!SshMessages::isNotification(hint));
        QVERIFY(SshMessages::isNotification("none"));
    }

    void errorsOfFailures()
    {
        using F = Session::Failure;
        QCOMPARE(SshMessages::errorForFailure(F::HostKeyUnknown), int(ErrUnknownHostKey));
        QCOMPARE(SshMessages::errorForFailure(F::AuthenticationFailed), int(ErrCannotAuthenticate));
        QCOMPARE(SshMessages::errorForFailure(F::HostNotFound), int(ErrHostNotFound));
        QCOMPARE(SshMessages::errorForFailure(F::TimedOut), int(ErrTimedOut));
        QCOMPARE(SshMessages::errorForFailure(F::ConnectionRefused), int(ErrConnectionFailed));
        QCOMPARE(SshMessages::errorForFailure(F::HostKeyChanged), int(ErrHostKeyChanged));
    }
};

QTEST_GUILESS_MAIN(SftpPacketTest)
#include "sftppackettest.moc"
