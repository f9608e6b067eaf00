// SPDX-License-Identifier: LGPL-2.1-or-later
// The smb:// worker: the context, credentials, errors, listings and stat.
#include "smbworker.h"

#include "error.h"
#include "fileops_base_p.h"
#include "mimetypes.h"
#include "rawpath_p.h"
#include "smb_debug.h"
#include "smbwatch_p.h"
#include "url.h"
#include "url_p.h"

#include <cerrno>
#include <cstring>

#include <sys/stat.h>

namespace Qvfs
{

namespace
{

constexpr uint16_t DosReadOnly = 0x01;
constexpr uint16_t DosHidden = 0x02;
constexpr uint16_t DosDirectory = 0x10;
constexpr mode_t DosHiddenMode = S_IXOTH; // how libsmbclient's stat says "hidden" of a file

/*! "DOMAIN;user" or "DOMAIN\user" split; a plain user has no domain. */
void splitUser(const QByteArray &given, QByteArray *domain, QByteArray *user)
{
    qsizetype at = given.indexOf(';');
    if (at < 0)
        at = given.indexOf('\\');
    *domain = at < 0 ? QByteArray() : given.left(at);
    *user = at < 0 ? given : given.mid(at + 1);
}

} // namespace

SmbWorker::SmbWorker()
    : WorkerBase("smb")
{ }

SmbWorker::~SmbWorker() = default;

// ---------------------------------------------------------------- connection and errors

void SmbWorker::setHost(const QUrl &host)
{
    m_host = host;
    m_login = Smb::Login();
    m_haveLogin = false;
    m_askAgain = false;
    splitUser(host.userName(QUrl::FullyDecoded).toUtf8(), &m_login.domain, &m_login.user);
    if (m_login.user.compare("guest", Qt::CaseInsensitive) == 0 && m_login.domain.isEmpty()) {
        m_login.user.clear(); // anonymous, only when asked for by name
        m_login.guest = true;
        m_haveLogin = true;
    }
    m_ctx.purge();
    m_ctx.setPort(host.port(0));
}

void SmbWorker::closeConnection()
{
    m_ctx.purge();
}

WorkerResult SmbWorker::ensureContext()
{
    if (m_ctx.isValid())
        return WorkerResult::pass();
    if (!m_ctx.init([this](const char *server, const char *share) { return loginFor(server, share); })) {
        const int err = errno;
        return WorkerResult::fail(ErrInternal, QByteArrayLiteral("libsmbclient: ") + std::strerror(err));
    }
    m_ctx.setPort(m_host.port(0));
    return WorkerResult::pass();
}

bool SmbWorker::isHostRoot(const QUrl &url)
{
    const QString path = url.path();
    return path.isEmpty() || path == QLatin1String("/");
}

Smb::Login SmbWorker::loginFor(const char *server, const char *share)
{
    m_authServer = server;
    m_authShare = share;
    if (m_haveLogin && !m_askAgain)
        return m_login;
    PasswordQuestion q;
    q.url = m_host;
    q.realm = QStringLiteral("smb");
    q.user = QString::fromUtf8(m_login.domain.isEmpty() ? m_login.user : m_login.domain + '\\' + m_login.user);
    q.retry = m_askAgain;
    const Credentials answer = askPassword(q);
    m_askAgain = false;
    if (!answer.answered) {
        m_unanswered = true;
        return Smb::Login();
    }
    splitUser(answer.user.toUtf8(), &m_login.domain, &m_login.user);
    m_login.password = answer.password.toUtf8();
    m_login.guest = m_login.user.isEmpty();
    m_haveLogin = true;
    return m_login;
}

bool SmbWorker::loginRefused(int err) const
{
    return (err == EACCES || err == EPERM) && m_ctx.authenticationAsked();
}

WorkerResult SmbWorker::run(const QUrl &url, int op, const std::function<int()> &call)
{
    WorkerResult c = ensureContext();
    if (!c.ok())
        return c;
    if (!m_haveLogin && !url.password().isEmpty()) {
        m_login.password = url.password().toUtf8();
        m_haveLogin = true;
    }
    for (int attempt = 0;; ++attempt) {
        m_ctx.beginOperation();
        m_unanswered = false;
        errno = 0;
        if (call() >= 0)
            return WorkerResult::pass();
        const int err = errno;
        if (m_unanswered)
            return WorkerResult::fail(wasKilled() ? ErrCancelled : ErrCannotAuthenticate, url);
        if (err == EINVAL && m_ctx.authenticationAsked() && attempt == 0) {
            // A new connection that failed with EINVAL: libsmbclient's answer when its
            // Kerberos attempt goes wrong (GVfs retries too, gvfs#611); once more, anew.
            qCDebug(QVFS_SMB) << "connection failed with EINVAL: once more" << url;
            m_ctx.purge();
            continue;
        }
        if (!loginRefused(err))
            return fail(err, url, op);
        // A new connection was refused: the credentials, or the share for this user. A
        // denied file on a good connection looks the same, so the share itself tells.
        if (!isHostRoot(url)) {
            QUrl share = url;
            const QString path = url.path();
            share.setPath(path.left(path.indexOf(u'/', 1)));
            struct stat st;
            if (share != url && smbc_getFunctionStat(m_ctx.get())(m_ctx.get(), lib(share).constData(), &st) == 0)
                return fail(err, url, op);
        }
        if (attempt >= 2 || m_login.guest) {
            qCDebug(QVFS_SMB) << "login refused by" << m_authServer << "for" << m_authShare;
            return WorkerResult::fail(ErrCannotAuthenticate, url);
        }
        m_askAgain = true;
        m_haveLogin = false;
        m_ctx.purge();
    }
}

WorkerResult SmbWorker::fail(int err, const QUrl &url, int op)
{
    switch (err) {
    case ETIMEDOUT:
        return WorkerResult::fail(ErrServerTimedOut, Url::Detail::hostDisplay(m_host));
    case ECONNREFUSED:
    case ECONNRESET:
    case ECONNABORTED:
    case EHOSTUNREACH:
    case ENETUNREACH:
    case EPIPE:
        return WorkerResult::fail(
            ErrConnectionFailed, Url::Detail::hostDisplay(m_host), QByteArray(std::strerror(err)));
    case ENODEV: // no such share
        return WorkerResult::fail(ErrDoesNotExist, url);
    case 0:
        return WorkerResult::fail(ErrInternal, QByteArrayLiteral("libsmbclient failed without saying why"));
    default:
        break;
    }
    const int code = FileOps::errorFromErrno(err, FileOps::Operation(op));
    if (code == ErrInternal)
        return WorkerResult::fail(ErrInternal,
            QByteArrayLiteral("libsmbclient: ") + std::strerror(err) + " (" + url.toEncoded(QUrl::RemovePassword)
                + ')');
    return WorkerResult::fail(code, url);
}

// ---------------------------------------------------------------- folders

WorkerResult SmbWorker::readFolder(const QUrl &url, const std::function<bool(const DirEntry &)> &onEntry)
{
    SMBCCTX *ctx = nullptr;
    SMBCFILE *dir = nullptr;
    WorkerResult r = run(url, int(FileOps::Operation::Read), [&] {
        ctx = m_ctx.get();
        dir = smbc_getFunctionOpendir(ctx)(ctx, lib(url).constData());
        return dir ? 0 : -1;
    });
    if (!r.ok())
        return r;
    const bool shares = isHostRoot(url);
    DirEntry e;
    int sinceCheck = 0;
    bool stopped = false;
    for (;;) {
        if ((++sinceCheck & 255) == 0 && wasKilled()) {
            r = WorkerResult::fail(ErrCancelled, url);
            break;
        }
        if (shares) {
            // Shares come from readdir only; disk shares are the folders.
            const struct smbc_dirent *d = smbc_getFunctionReaddir(ctx)(ctx, dir);
            if (!d)
                break;
            if (d->smbc_type != SMBC_FILE_SHARE)
                continue;
            e = DirEntry();
            e.name = QByteArray(d->name);
            e.isFolder = true;
            e.hidden = e.name.endsWith('$'); // administrative shares
        } else {
            // readdirplus, not readdirplus2: its struct stat costs 8 µs an entry (a
            // path made and hashed for the inode), which nothing here needs.
            const struct libsmb_file_info *info = smbc_getFunctionReaddirPlus(ctx)(ctx, dir);
            if (!info)
                break;
            e.name = QByteArray(info->name);
            if (e.name == "." || e.name == "..")
                continue;
            e.isFolder = (info->attrs & DosDirectory) != 0;
            e.hidden = (info->attrs & DosHidden) != 0;
            e.readOnly = (info->attrs & DosReadOnly) != 0;
            e.size = e.isFolder ? 0 : qint64(qMin<uint64_t>(info->size, uint64_t(INT64_MAX)));
            e.mtime = info->mtime_ts;
            e.atime = info->atime_ts;
            e.btime = info->btime_ts;
        }
        if (!Url::isSafeName(e.name)) {
            leftOutUnsafeName(url, e.name);
            continue;
        }
        if (!onEntry(e)) {
            stopped = true;
            break;
        }
    }
    smbc_getFunctionClosedir(ctx)(ctx, dir);
    Q_UNUSED(stopped)
    return r;
}

void SmbWorker::entryFromStat(const struct stat &st, DirEntry *e)
{
    e->isFolder = S_ISDIR(st.st_mode);
    e->size = e->isFolder ? 0 : qint64(st.st_size);
    e->mtime = st.st_mtim;
    e->atime = st.st_atim;
    // A folder's synthesised mode has every execute bit, so only a listing tells whether a
    // folder is hidden (readdirplus gives its attributes); nor does libsmbclient's
    // "system.dos_attr.mode" help: in 4.17 it is that same mode.
    e->hidden = !e->isFolder && (st.st_mode & DosHiddenMode) != 0;
    // Read-only is the owner's write bit, for files and folders alike.
    e->readOnly = (st.st_mode & S_IWUSR) == 0;
}

WorkerResult SmbWorker::statEntry(const QUrl &url, struct stat *st)
{
    return run(url, int(FileOps::Operation::Read),
        [&] { return smbc_getFunctionStat(m_ctx.get())(m_ctx.get(), lib(url).constData(), st); });
}

void SmbWorker::addEntry(QByteArrayView name, const DirEntry &e, Details details)
{
    beginEntry();
    addString(Name, name);
    addNumber(Type, qint64(e.isFolder ? FileType::Directory : FileType::Regular));
    if ((details & DetailBasic) && !e.isFolder)
        addNumber(Size, e.size);
    if ((details & DetailTime) && e.mtime.tv_sec > 0) {
        addNumber(MTime, e.mtime.tv_sec);
        addNumber(MTimeNs, e.mtime.tv_nsec);
    }
    if (details & DetailAllTimes) {
        if (e.atime.tv_sec > 0) {
            addNumber(ATime, e.atime.tv_sec);
            addNumber(ATimeNs, e.atime.tv_nsec);
        }
        if (e.btime.tv_sec > 0) {
            addNumber(BTime, e.btime.tv_sec);
            addNumber(BTimeNs, e.btime.tv_nsec);
        }
    }
    if (e.hidden || name.startsWith('.'))
        addNumber(Hidden, 1);
    if ((details & DetailBasic) && e.readOnly)
        addNumber(ReadOnly, 1);
    if (details & DetailMimeType)
        addAtom(MimeType,
            mimeTypeOf(e.isFolder ? FileType::Directory : FileType::Regular, name.sliced(name.lastIndexOf('/') + 1))
                .toUtf8());
    endEntry();
}

WorkerResult SmbWorker::listDir(const ListRequest &request)
{
    const QUrl &url = request.url;
    if (url.host().isEmpty())
        return WorkerResult::fail(ErrUnsupportedAction, url); // no network browsing (yet)
    struct Folder
    {
        QByteArray rel;
        QUrl url;
    };
    QList<Folder> todo { { QByteArray(), url } };
    qint64 skipped = 0;
    while (!todo.isEmpty()) {
        const Folder folder = todo.takeLast();
        QList<QByteArray> subfolders;
        const WorkerResult r = readFolder(folder.url, [&](const DirEntry &e) {
            const QByteArray name = Internal::joinPath(folder.rel, e.name);
            addEntry(name, e, request.details);
            if (request.recursive && e.isFolder)
                subfolders.append(e.name);
            return true;
        });
        if (!r.ok()) {
            if (folder.rel.isEmpty() || r.code() == ErrCancelled
                || (r.code() != ErrAccessDenied && r.code() != ErrDoesNotExist))
                return r;
            ++skipped; // unreadable, or gone meanwhile: listed, not entered
            continue;
        }
        for (const QByteArray &n : std::as_const(subfolders)) {
            const QByteArray rel = Internal::joinPath(folder.rel, n);
            if (rel.size() > MaxTreePathBytes) {
                leftOut(Url::child(folder.url, n), ErrUrlTooLong);
                continue;
            }
            todo.append({ rel, Url::child(folder.url, n) });
        }
    }
    if (skipped)
        setResult(ResultKey::SkippedFolders, skipped);
    return WorkerResult::pass();
}

WorkerResult SmbWorker::stat(const StatRequest &request)
{
    const QUrl &url = request.url;
    if (url.host().isEmpty())
        return WorkerResult::fail(ErrUnsupportedAction, url);
    DirEntry e;
    e.isFolder = true;
    QByteArray name = Url::fileName(url);
    if (isHostRoot(url)) {
        // The host itself: a folder of shares, once the server let us list them.
        const WorkerResult r = readFolder(url, [](const DirEntry &) { return false; });
        if (!r.ok())
            return r;
        name = QByteArrayLiteral("/");
    } else {
        struct stat st;
        const WorkerResult r = statEntry(url, &st);
        if (!r.ok())
            return r;
        entryFromStat(st, &e);
    }
    addEntry(name, e, request.details);
    return WorkerResult::pass();
}

} // namespace Qvfs
