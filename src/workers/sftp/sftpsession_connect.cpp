// SPDX-License-Identifier: LGPL-2.1-or-later
// Connecting: ssh started with checked arguments, the SFTP version and extensions
// negotiated, the session's limits; and disconnecting.
#include "sftpsession.h"
#include "sftpsession_p.h"

#include "askpassprotocol_p.h"
#include "error.h"
#include "sftp_debug.h"
#include "sshmessages_p.h"

#include <QCoreApplication>
#include <QCryptographicHash>

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace Qvfs::Sftp
{

namespace
{

// Whether every byte of \a s is an ASCII letter or digit, '.', '-', '_' or one of \a extra.
bool isPlainName(const QByteArray &s, QByteArrayView extra)
{
    return std::all_of(s.cbegin(), s.cend(), [extra](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-'
            || c == '_' || extra.contains(c);
    });
}

// Host names, addresses and ssh_config aliases; nothing ssh could take for an option or a
// shell could take for syntax (ssh puts %h into ProxyCommand).
bool isSafeHost(const QByteArray &host)
{
    if (host.isEmpty() || host.startsWith('-') || host.size() > 1024)
        return false;
    return isPlainName(host, ":%");
}

bool isSafeUser(const QByteArray &user)
{
    if (user.startsWith('-') || user.size() > 256)
        return false;
    return isPlainName(user, "@+");
}

QByteArray besideThisProgram(const char *name)
{
    char buf[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return name;
    QByteArray self(buf, n);
    return self.left(self.lastIndexOf('/') + 1) + name;
}

} // namespace

Session::Session()
    : d(new SessionPrivate(this))
{ }

Session::~Session()
{
    disconnect();
}

void Session::setCancelCallback(CancelCallback callback)
{
    d->cancel = std::move(callback);
}

void Session::setAskCallback(AskCallback callback)
{
    d->ask = std::move(callback);
}

Result Session::connect(const Options &options)
{
    disconnect();
    // A fresh state (keeps the callbacks).
    {
        auto cancel = std::move(d->cancel);
        auto ask = std::move(d->ask);
        d.reset(new SessionPrivate(this));
        d->cancel = std::move(cancel);
        d->ask = std::move(ask);
    }
    Options &o = d->options;
    o = options;
    if (o.sshProgram.isEmpty())
        o.sshProgram
            = qEnvironmentVariableIsEmpty("QVFS_SSH_PROGRAM") ? QByteArray("ssh") : qgetenv("QVFS_SSH_PROGRAM");
    if (o.configFile.isEmpty())
        o.configFile = qgetenv("QVFS_SSH_CONFIG");
    if (o.runtimeDir.isEmpty())
        o.runtimeDir = Ssh::defaultRuntimeDir();
    if (o.askpassProgram.isEmpty())
        o.askpassProgram = besideThisProgram("qvfs-sftp-askpass");
    o.maxRequests = qBound(1, o.maxRequests, 1024);
    o.ioTimeoutMs = qMax(100, o.ioTimeoutMs);

    if (!isSafeHost(o.host))
        return makeError(ErrMalformedUrl, {},
            QCoreApplication::translate("Qvfs", "The host name \"%1\" cannot be given to ssh.")
                .arg(QString::fromUtf8(o.host)));
    if (!isSafeUser(o.user))
        return makeError(ErrMalformedUrl, {},
            QCoreApplication::translate("Qvfs", "The user name \"%1\" cannot be given to ssh.")
                .arg(QString::fromUtf8(o.user)));
    if (o.port < 0 || o.port > 65535)
        return makeError(ErrMalformedUrl, {}, QCoreApplication::translate("Qvfs", "Invalid port %1.").arg(o.port));

    QByteArray why;
    if (!Ssh::ensurePrivateDir(o.runtimeDir, &why))
        return makeError(ErrInternal, {}, QString::fromLocal8Bit(why));
    if (::access(o.askpassProgram.constData(), X_OK) != 0)
        qCWarning(QVFS_SFTP) << "askpass relay not found:" << o.askpassProgram << "- prompts will fail";

    // One connection attempt at a time per destination, across processes: the first
    // authenticates and becomes the ControlMaster, the others then ride on it.
    Ssh::Lock lock;
    if (o.shareConnection) {
        const QByteArray key = o.configFile + '\0' + o.user + '\0' + o.host + '\0' + QByteArray::number(o.port);
        const QByteArray lockPath
            = o.runtimeDir + "/lock-" + QCryptographicHash::hash(key, QCryptographicHash::Sha1).toHex().left(20);
        if (!lock.open(lockPath, &why))
            return makeError(ErrInternal, {}, QString::fromLocal8Bit(why));
        while (!lock.tryLock()) {
            if (d->cancel && d->cancel())
                return makeError(ErrCancelled, {}, {});
            ::usleep(20 * 1000);
        }
    }

    if (!d->askpass.listen(o.runtimeDir, &why))
        return makeError(ErrInternal, {}, QString::fromLocal8Bit(why));

    QList<QByteArray> argv { o.sshProgram };
    if (!o.configFile.isEmpty())
        argv << "-F" << o.configFile;
    const auto opt = [&argv](const QByteArray &value) { argv << "-o" << value; };
    opt("BatchMode=no");
    opt("LogLevel=INFO");
    const QByteArray controlPath = o.runtimeDir + "/%C";
    if (o.shareConnection && controlPath.size() + 40 < 100) {
        opt("ControlMaster=auto");
        // ssh splits option values at blanks unless quoted.
        const bool blank = controlPath.contains(' ') || controlPath.contains('\t');
        opt("ControlPath=" + (blank ? '"' + controlPath + '"' : controlPath));
        opt("ControlPersist=" + QByteArray::number(qMax(1, o.controlPersistSeconds)));
    } else {
        opt("ControlMaster=no");
        opt("ControlPath=none");
    }
    opt("ServerAliveInterval=" + QByteArray::number(qMax(1, o.serverAliveSeconds)));
    opt("ServerAliveCountMax=3");
    opt("ConnectTimeout=" + QByteArray::number(qMax(1, o.connectTimeoutSeconds)));
    opt("ForwardX11=no");
    opt("ForwardAgent=no");
    opt("ClearAllForwardings=yes");
    opt("PermitLocalCommand=no");
    opt("RequestTTY=no");
    for (const QByteArray &extra : std::as_const(o.sshOptions))
        opt(extra);
    if (!o.user.isEmpty())
        argv << "-l" << o.user;
    if (o.port > 0)
        argv << "-p" << QByteArray::number(o.port);
    argv << "-s"
         << "--" << o.host << "sftp";

    QList<QByteArray> env = o.environment;
    env << "SSH_ASKPASS=" + o.askpassProgram << "SSH_ASKPASS_REQUIRE=force"
        << QByteArray(Askpass::SocketVariable) + '=' + d->askpass.path()
        << QByteArray(Askpass::TokenVariable) + '=' + d->askpass.token();
    qCDebug(QVFS_SFTP) << "starting" << argv;
    if (!d->process.start(argv, env, &why)) {
        d->askpass.close();
        return makeError(ErrCannotCreateWorker, {}, QString::fromLocal8Bit(why), Failure::SshFailed);
    }

    d->connecting = true;
    d->lastActivity.start();
    {
        Packet::Writer w(d->out);
        w.begin(Packet::Init);
        w.u32(Packet::ProtocolVersion);
        w.end();
        d->flushOutput();
    }
    const SessionPrivate::ReplyHandler noReplies = [this](const Packet::Reply &) -> Result {
        return d->breakWith(
            d->protocolError(QCoreApplication::translate("Qvfs", "The server answered before the session started.")));
    };
    Result r;
    while (!d->versionReceived && !d->cancelledByPrompt && !d->hostKeyRefused) {
        r = d->pump(noReplies);
        if (!r.ok())
            break;
    }
    d->connecting = false;
    d->askpass.close();
    if (r.ok() && (d->cancelledByPrompt || d->hostKeyRefused)) {
        d->process.stop(0);
        if (d->hostKeyRefused) {
            r = makeError(ErrUnknownHostKey, {}, QString::fromUtf8(d->stderrFailureLine), Failure::HostKeyUnknown);
        } else {
            r = makeError(ErrCancelled, {}, {});
        }
    }
    if (!r.ok()) {
        d->process.stop(0);
        // A changed host key seen on stderr names the real cause, whatever ended the wait.
        if (d->stderrFailure == Failure::HostKeyChanged && r.failure != Failure::HostKeyChanged)
            r = d->connectionError(Failure::HostKeyChanged, {});
        d->broken = false;
        return r;
    }
    if (d->version.version != Packet::ProtocolVersion) {
        d->process.stop(0);
        return makeError(ErrProtocolError, {},
            QCoreApplication::translate("Qvfs", "The server speaks SFTP version %1, not 3.").arg(d->version.version),
            Failure::ProtocolError);
    }
    // Through a shared connection ssh cannot check the key again; but a direct
    // connection that went on with a changed key (StrictHostKeyChecking=no) must not be used.
    if (d->stderrFailure == Failure::HostKeyChanged) {
        d->process.stop(0);
        return d->connectionError(Failure::HostKeyChanged, {});
    }

    const Packet::VersionInfo &v = d->version;
    d->extPosixRename = v.hasExtension("posix-rename@openssh.com", "1");
    d->extStatVfs = v.hasExtension("statvfs@openssh.com", "2");
    d->extFsync = v.hasExtension("fsync@openssh.com", "1");
    d->extHardlink = v.hasExtension("hardlink@openssh.com", "1");
    d->extLsetstat = v.hasExtension("lsetstat@openssh.com", "1");
    d->extUserGroupNames = v.hasExtension("users-groups-by-id@openssh.com", "1");
    d->extCopyData = v.hasExtension("copy-data", "1");
    d->extLimits = v.hasExtension("limits@openssh.com", "1");
    d->connected = true;

    if (d->extLimits) {
        Packet::Writer w(d->out);
        const quint32 id = d->beginExtended(w, "limits@openssh.com");
        d->finish(w);
        r = d->call(id, [this](const Packet::Reply &reply) {
            if (reply.type == Packet::ExtendedReply && Packet::parseLimits(reply.data, &d->limits))
                return Result();
            return d->statusResult(reply, {}, Op::Other);
        });
        if (!r.ok() && d->broken)
            return r;
        if (d->limits.maxReadLength >= 1024)
            d->readChunk = quint32(qMin<quint64>(d->limits.maxReadLength, 256 * 1024));
        if (d->limits.maxWriteLength >= 1024)
            d->writeChunk = quint32(qMin<quint64>(d->limits.maxWriteLength, 256 * 1024));
        if (d->limits.maxPacketLength >= 4096) {
            const quint64 room = d->limits.maxPacketLength - 1024; // handle and headers
            d->readChunk = quint32(qMin<quint64>(d->readChunk, room));
            d->writeChunk = quint32(qMin<quint64>(d->writeChunk, room));
        }
        // OpenSSH answers pipelined READDIRs on one handle in order.
        d->readdirDepth = 4;
    }
    qCDebug(QVFS_SFTP) << "connected to" << o.host << "read" << d->readChunk << "write" << d->writeChunk << "extensions"
                       << v.extensions.size();
    return {};
}

void Session::disconnect()
{
    if (d->process.running()) {
        if (d->connected && d->outstanding > 0)
            d->drain(2000);
        d->process.stop(500);
    }
    d->askpass.close();
    d->connected = false;
}

bool Session::isConnected() const
{
    return d->connected;
}

quint32 Session::serverVersion() const
{
    return d->version.version;
}

bool Session::hasExtension(QByteArrayView name) const
{
    for (const auto &ext : d->version.extensions) {
        if (ext.first == name)
            return true;
    }
    return false;
}

Limits Session::limits() const
{
    return d->limits;
}

quint32 Session::readChunkSize() const
{
    return d->readChunk;
}

quint32 Session::writeChunkSize() const
{
    return d->writeChunk;
}

Session::Statistics Session::statistics() const
{
    return d->statistics;
}

void Session::resetStatistics()
{
    d->statistics = Statistics();
}

} // namespace Qvfs::Sftp
