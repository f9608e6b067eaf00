// SPDX-License-Identifier: LGPL-2.1-or-later
// The sftp worker: its connection and prompts, the mapping of the engine's results to the
// worker's errors, URL paths, and listings and stat.
#include "sftpworker.h"

#include "error.h"
#include "mimetypes.h"
#include "rawpath_p.h"
#include "sftp_debug.h"
#include "url.h"
#include "url_p.h"

#include <QSet>

#include <utility>

#include <sys/stat.h>

namespace Qvfs
{

using Sftp::Attributes;
using Sftp::Session;

namespace
{

FileType fileTypeOf(const Attributes &a)
{
    if (!a.has(Attributes::Permissions))
        return FileType::Unknown;
    return fileTypeFromMode(a.permissions);
}

bool allDigits(QByteArrayView s)
{
    if (s.isEmpty())
        return false;
    for (char c : s) {
        if (c < '0' || c > '9')
            return false;
    }
    return true;
}

// The first \a count blank-separated fields of \a line.
QList<QByteArrayView> fields(QByteArrayView line, int count)
{
    QList<QByteArrayView> out;
    qsizetype i = 0;
    while (out.size() < count && i < line.size()) {
        while (i < line.size() && line[i] == ' ')
            ++i;
        const qsizetype start = i;
        while (i < line.size() && line[i] != ' ')
            ++i;
        if (i > start)
            out.append(line.sliced(start, i - start));
    }
    return out;
}

// The user name in ssh's password prompts: "user@host's password:" and PAM's
// keyboard-interactive "(user@host) Password:".
QByteArray userInPrompt(const QString &text)
{
    QString t = text.trimmed();
    if (t.startsWith(QLatin1Char('(')))
        t = t.mid(1);
    const qsizetype at = t.indexOf(QLatin1Char('@'));
    if (at <= 0)
        return {};
    const QString user = t.left(at);
    if (user.contains(QLatin1Char(' ')))
        return {};
    return user.toUtf8();
}

constexpr int MaxNames = 4096; // uid/gid → name entries kept per connection

} // namespace

SftpWorker::SftpWorker()
    : WorkerBase(QByteArrayLiteral("sftp"))
{
    m_session.setCancelCallback([this] { return wasKilled(); });
    m_session.setAskCallback([this](const Session::Prompt &p) { return answerPrompt(p); });
}

SftpWorker::~SftpWorker() = default;

// ---------------------------------------------------------------- connection

void SftpWorker::setHost(const QUrl &host)
{
    m_host = host;
    m_host.setPath(QString());
    m_loginUser.clear();
    m_loginPassword.clear();
}

void SftpWorker::closeConnection()
{
    qCDebug(QVFS_SFTP) << "closing the connection to" << m_host.host();
    m_session.disconnect();
    m_home.clear();
    m_userNames.clear();
    m_groupNames.clear();
    m_namesUnsupported = false;
}

bool SftpWorker::connectionLost(const Result &r)
{
    return r.failure == Session::Failure::ConnectionLost;
}

WorkerResult SftpWorker::ensureConnected(bool *fresh)
{
    if (fresh)
        *fresh = false;
    if (m_session.isConnected())
        return WorkerResult::pass();
    if (m_host.host().isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, m_host);
    m_home.clear();
    Session::Options o;
    o.host = m_host.host(QUrl::FullyEncoded).toUtf8();
    o.user = m_loginUser.isEmpty() ? m_host.userName(QUrl::FullyDecoded).toUtf8() : m_loginUser;
    o.port = m_host.port(0) > 0 ? m_host.port() : 0;
    bool ok = false;
    const int timeoutMs = qEnvironmentVariableIntValue("QVFS_SFTP_TIMEOUT_MS", &ok); // tests: a shorter wait
    if (ok && timeoutMs > 0)
        o.ioTimeoutMs = timeoutMs;
    Result r;
    // At most one more attempt: a password answered with another user name (URL without
    // a user) starts over as that user.
    for (int attempt = 0; attempt < 2; ++attempt) {
        m_promptUnanswered = false;
        const QByteArray userBefore = m_loginUser;
        r = m_session.connect(o);
        if (r.ok() || r.error != ErrCancelled || m_loginUser == userBefore || wasKilled())
            break;
        o.user = m_loginUser;
    }
    m_loginPassword.clear();
    if (r.ok()) {
        qCDebug(QVFS_SFTP) << "connected to" << o.host << "as" << (o.user.isEmpty() ? "the configured user" : o.user);
        if (fresh)
            *fresh = true;
        return WorkerResult::pass();
    }
    qCDebug(QVFS_SFTP) << "cannot connect to" << o.host << r.error << r.detail;
    const QByteArray host = Url::Detail::hostDisplay(m_host);
    switch (r.error) {
    case ErrCancelled:
        if (!wasKilled() && m_promptUnanswered)
            return WorkerResult::fail(ErrNotAnswered, m_host);
        return WorkerResult::fail(ErrCancelled, m_host);
    case ErrHostKeyChanged:
    case ErrConnectionFailed:
        return WorkerResult::fail(r.error, host, r.detail.toUtf8());
    case ErrUnknownHostKey:
        return WorkerResult::fail(r.error, host, r.detail.toUtf8());
    case ErrHostNotFound:
        return WorkerResult::fail(r.error, host);
    case ErrTimedOut:
        return WorkerResult::fail(ErrServerTimedOut, host); // the server, not this worker
    case ErrCannotCreateWorker:
        return WorkerResult::fail(r.error, QByteArrayLiteral("sftp"), r.detail.toUtf8());
    case ErrProtocolError:
    case ErrInternal:
        return WorkerResult::fail(r.error, r.detail.toUtf8());
    default:
        return WorkerResult::fail(r.error, m_host); // ErrCannotAuthenticate, ErrMalformedUrl
    }
}

Session::AskResult SftpWorker::answerPrompt(const Session::Prompt &prompt)
{
    Session::AskResult answer;
    if (prompt.kind == Session::Prompt::UnknownHostKey) {
        TrustQuestion q;
        q.kind = QuestionKind::HostKey;
        q.host = QString::fromUtf8(Url::Detail::hostDisplay(m_host));
        q.fingerprint = prompt.fingerprint;
        q.detail = prompt.keyType;
        const Trust trust = askTrust(q);
        // "Once" cannot be had from OpenSSH: accepting makes it record the key.
        answer.accepted = trust != Trust::Refuse;
        qCDebug(QVFS_SFTP) << "host key" << prompt.fingerprint << (answer.accepted ? "accepted" : "refused");
        return answer;
    }
    if (prompt.kind == Session::Prompt::Password && prompt.attempt == 1 && !m_loginPassword.isEmpty()) {
        // The connection started over as the user named in an answer: that answer's password.
        answer.accepted = true;
        answer.answer = std::exchange(m_loginPassword, {});
        return answer;
    }
    PasswordQuestion q;
    q.url = m_host;
    q.prompt = prompt.text;
    q.retry = prompt.attempt > 1; // the previous answer was wrong: not from the cache again
    QByteArray user = userInPrompt(prompt.text);
    if (user.isEmpty())
        user = prompt.user;
    switch (prompt.kind) {
    case Session::Prompt::Password:
        q.realm = QStringLiteral("ssh");
        q.user = QString::fromUtf8(user);
        break;
    case Session::Prompt::Passphrase:
        // Not the password's cache entry: a key's passphrase is another secret.
        q.realm = QStringLiteral("ssh key ") + prompt.keyFile;
        q.secretOnly = true;
        break;
    case Session::Prompt::UnknownHostKey:
    case Session::Prompt::Other:
        // One-time codes, PINs: keyed by the question itself.
        q.realm = QStringLiteral("ssh: ") + prompt.text.trimmed();
        q.user = QString::fromUtf8(user);
        q.secretOnly = true;
        break;
    }
    const Credentials c = askPassword(q);
    if (!c.answered) {
        m_promptUnanswered = true;
        return answer;
    }
    const QByteArray answeredUser = c.user.toUtf8();
    if (prompt.kind == Session::Prompt::Password && !answeredUser.isEmpty() && answeredUser != user
        && m_host.userName().isEmpty() && m_loginUser != answeredUser) {
        // Another user than ssh logs in as: start over as that one (ensureConnected()).
        qCDebug(QVFS_SFTP) << "logging in as" << answeredUser << "instead";
        m_loginUser = answeredUser;
        m_loginPassword = c.password.toUtf8();
        return answer;
    }
    answer.accepted = true;
    answer.answer = c.password.toUtf8();
    return answer;
}

// ---------------------------------------------------------------- paths and errors

WorkerResult SftpWorker::serverPath(const QUrl &url, QByteArray *path)
{
    const QByteArray encoded = url.path(QUrl::FullyEncoded).toLatin1();
    // A name cannot hold '/' or NUL: such a URL names nothing on the server.
    if (encoded.contains("%2F") || encoded.contains("%2f") || encoded.contains("%00"))
        return WorkerResult::fail(ErrMalformedUrl, url);
    QByteArray p = QByteArray::fromPercentEncoding(encoded);
    if (p.isEmpty()) {
        if (m_home.isEmpty()) {
            const WorkerResult c = ensureConnected();
            if (!c.ok())
                return c;
            const Result r = m_session.realPath(QByteArrayLiteral("."), &m_home);
            if (!r.ok())
                return fail(r, url);
        }
        p = m_home;
    }
    if (!p.startsWith('/'))
        return WorkerResult::fail(ErrMalformedUrl, url);
    QByteArray clean;
    clean.reserve(p.size());
    for (char c : std::as_const(p)) {
        if (c == '/' && clean.endsWith('/'))
            continue;
        clean.append(c);
    }
    if (clean.size() > 1 && clean.endsWith('/'))
        clean.chop(1);
    *path = clean;
    return WorkerResult::pass();
}

WorkerResult SftpWorker::connectedPath(const QUrl &url, QByteArray *path, bool *fresh)
{
    const WorkerResult c = ensureConnected(fresh);
    return c.ok() ? serverPath(url, path) : c;
}

WorkerResult SftpWorker::connectedRedirectedPath(const QUrl &url, QByteArray *path, bool *fresh)
{
    const WorkerResult c = connectedPath(url, path, fresh);
    if (c.ok() && url.path().isEmpty())
        redirection(urlOf(*path));
    return c;
}

WorkerResult SftpWorker::connectedLstat(const QUrl &url, QByteArray *path, Attributes *attrs)
{
    const WorkerResult c = connectedPath(url, path);
    if (!c.ok())
        return c;
    const Result r = m_session.lstat(*path, attrs);
    return r.ok() ? WorkerResult::pass() : fail(r, url);
}

WorkerResult SftpWorker::statBeforeOpen(const QUrl &url, QByteArray *path, Attributes *attrs, Result *statResult)
{
    bool fresh = false;
    WorkerResult c = connectedPath(url, path, &fresh);
    if (!c.ok())
        return c;
    *statResult = m_session.stat(*path, attrs);
    if (!statResult->ok() && !fresh && connectionLost(*statResult)) {
        c = ensureConnected(&fresh);
        if (!c.ok())
            return c;
        *statResult = m_session.stat(*path, attrs);
    }
    return WorkerResult::pass();
}

WorkerResult SftpWorker::statForReading(
    const QUrl &url, const FileIdentity &expected, QByteArray *path, Attributes *attrs)
{
    Result r;
    const WorkerResult c = statBeforeOpen(url, path, attrs, &r);
    if (!c.ok())
        return c;
    if (!r.ok())
        return fail(r, url);
    if (attrs->isDir())
        return WorkerResult::fail(ErrIsDirectory, url);
    if (attrs->has(Attributes::Permissions) && !attrs->isRegular())
        return WorkerResult::fail(ErrCannotRead, url);
    if (expected.isValid())
        qCDebug(QVFS_SFTP) << "SFTP has no file identity to check for" << *path;
    return WorkerResult::pass();
}

QUrl SftpWorker::urlOf(QByteArrayView path) const
{
    QUrl root = m_host;
    root.setPath(QStringLiteral("/"));
    if (path.size() <= 1)
        return root;
    const QUrl u = Url::child(root, path.sliced(1));
    if (u.isValid())
        return u;
    // "." or ".." in a path a request gave: shown as text, for the message only.
    root.setPath(QString::fromUtf8(path));
    return root;
}

WorkerResult SftpWorker::fail(const Result &r, const QUrl &url)
{
    if (r.ok())
        return WorkerResult::pass();
    if (r.error == ErrCancelled)
        return WorkerResult::fail(ErrCancelled, url);
    if (r.failure != Session::Failure::None) {
        // The connection itself: say which host, and why.
        const QByteArray host = Url::Detail::hostDisplay(m_host);
        switch (r.error) {
        case ErrTimedOut:
            return WorkerResult::fail(ErrServerTimedOut, host); // the server, not this worker
        case ErrProtocolError:
        case ErrInternal:
            return WorkerResult::fail(r.error, r.detail.toUtf8());
        default:
            return WorkerResult::fail(r.error, host, r.detail.toUtf8());
        }
    }
    const QUrl where = r.path.isEmpty() ? url : urlOf(r.path);
    switch (r.error) {
    case ErrServerError:
        return WorkerResult::fail(r.error, where.toEncoded(), r.detail.toUtf8());
    case ErrProtocolError:
    case ErrInternal:
        return WorkerResult::fail(r.error, r.detail.toUtf8());
    case ErrConnectionFailed:
        return WorkerResult::fail(r.error, Url::Detail::hostDisplay(m_host), r.detail.toUtf8());
    default:
        return WorkerResult::fail(r.error, where);
    }
}

// ---------------------------------------------------------------- entries

void SftpWorker::learnNames(QByteArrayView longName, const Attributes &attrs)
{
    // OpenSSH: "-rw-r--r--    1 user     group        1234 Jan  1 00:00 name"
    if (longName.isEmpty() || !attrs.has(Attributes::UidGid)
        || (m_userNames.contains(attrs.uid) && m_groupNames.contains(attrs.gid)))
        return;
    const QList<QByteArrayView> f = fields(longName, 4);
    if (f.size() < 4 || f.at(0).size() < 10 || !allDigits(f.at(1)))
        return;
    const auto keep = [](QHash<quint32, QByteArray> &names, quint32 id, QByteArrayView name) {
        // A number stands for an id the server has no name for.
        if (allDigits(name) || names.contains(id) || names.size() >= MaxNames)
            return;
        names.insert(id, name.toByteArray());
    };
    keep(m_userNames, attrs.uid, f.at(2));
    keep(m_groupNames, attrs.gid, f.at(3));
}

void SftpWorker::lookUpNames(const Attributes &attrs)
{
    if (m_namesUnsupported || !attrs.has(Attributes::UidGid))
        return;
    const bool user = !m_userNames.contains(attrs.uid);
    const bool group = !m_groupNames.contains(attrs.gid);
    if ((!user && !group) || m_userNames.size() >= MaxNames || m_groupNames.size() >= MaxNames)
        return;
    QList<QByteArray> users, groups;
    const Result r = m_session.userGroupNames(user ? QList<quint32> { attrs.uid } : QList<quint32>(),
        group ? QList<quint32> { attrs.gid } : QList<quint32>(), &users, &groups);
    if (!r.ok()) {
        m_namesUnsupported = r.error == ErrUnsupportedAction;
        return;
    }
    // A name the server does not know is remembered as such (empty: not added).
    if (user)
        m_userNames.insert(attrs.uid, users.value(0));
    if (group)
        m_groupNames.insert(attrs.gid, groups.value(0));
}

void SftpWorker::addEntry(QByteArrayView name, const Attributes &attrs, Details details, const QByteArrayView *target,
    QByteArrayView longName)
{
    beginEntry();
    addString(Name, name);
    const FileType type = fileTypeOf(attrs);
    addNumber(Type, qint64(type));
    if (details & DetailBasic) {
        if (attrs.has(Attributes::Permissions))
            addNumber(Mode, attrs.permissions & 07777);
        if (attrs.has(Attributes::Size))
            addNumber(Size, attrs.signedSize());
    }
    if ((details & DetailTime) && attrs.has(Attributes::AccessModTime))
        addNumber(MTime, attrs.mtime);
    if ((details & DetailAllTimes) && attrs.has(Attributes::AccessModTime))
        addNumber(ATime, attrs.atime);
    if ((details & DetailUser) && attrs.has(Attributes::UidGid)) {
        addNumber(Uid, attrs.uid);
        addNumber(Gid, attrs.gid);
        learnNames(longName, attrs);
        if (const auto u = m_userNames.constFind(attrs.uid); u != m_userNames.cend() && !u->isEmpty())
            addAtom(User, *u);
        if (const auto g = m_groupNames.constFind(attrs.gid); g != m_groupNames.cend() && !g->isEmpty())
            addAtom(Group, *g);
    }
    if ((details & DetailInode) && !longName.isEmpty()) {
        const QList<QByteArrayView> f = fields(longName, 2);
        if (f.size() == 2 && f.at(0).size() >= 10 && allDigits(f.at(1)))
            addNumber(NLink, f.at(1).toLongLong());
    }
    if (target)
        addString(LinkTarget, *target);
    const QByteArrayView base = name.sliced(name.lastIndexOf('/') + 1);
    if (details & DetailMimeType)
        addAtom(MimeType, mimeTypeOf(type, base).toUtf8());
    if (base.startsWith('.'))
        addNumber(Hidden, 1);
    endEntry();
}

// ---------------------------------------------------------------- list and stat

WorkerResult SftpWorker::listDir(const ListRequest &request)
{
    const QUrl &url = request.url;
    bool fresh = false;
    QByteArray root;
    WorkerResult c = connectedRedirectedPath(url, &root, &fresh);
    if (!c.ok())
        return c;
    const Details details = request.details;
    const bool recursive = request.recursive;
    const bool follow = recursive && request.followSymlinks;
    int flags = 0;
    if ((details & (DetailBasic | DetailResolveSymlink)) || follow)
        flags |= Session::ResolveLinks;

    struct Folder
    {
        QByteArray rel; // relative to the root: the prefix of its entries' names
        QByteArray path; // on the server
    };
    QList<Folder> todo { { QByteArray(), root } };
    // Each folder once when following links (no inodes in SFTP: canonical paths instead).
    QSet<QByteArray> visited;
    if (follow) {
        QByteArray canonical;
        if (m_session.realPath(root, &canonical).ok())
            visited.insert(canonical);
    }
    QByteArray name;
    qint64 skipped = 0;
    int listed = 0;
    bool retried = false;
    while (!todo.isEmpty()) {
        const Folder folder = todo.takeLast();
        QList<QByteArray> subfolders; // names of folders (or links to folders) inside
        QList<QByteArray> linkedFolders;
        int sinceCheck = 0;
        const Result r = m_session.listDir(folder.path, flags, [&](const Session::DirEntry &e) {
            if (!Url::isSafeName(e.name)) {
                leftOutUnsafeName(urlOf(folder.path), e.name);
                return 0;
            }
            const QByteArrayView *target = nullptr;
            const bool link = e.attrs.isSymLink();
            if (link && (flags & Session::ResolveLinks))
                target = &e.linkTarget;
            const bool resolved = link && e.targetValid && (details & DetailResolveSymlink);
            const Attributes &attrs = resolved ? e.targetAttrs : e.attrs;
            if (folder.rel.isEmpty()) {
                addEntry(e.name, attrs, details, target, resolved ? QByteArrayView() : e.longName);
            } else {
                name = folder.rel;
                name.append('/').append(e.name.data(), e.name.size());
                addEntry(name, attrs, details, target, resolved ? QByteArrayView() : e.longName);
            }
            ++listed;
            if (recursive) {
                if (e.attrs.isDir())
                    subfolders.append(e.name.toByteArray());
                else if (follow && link && e.targetValid && e.targetAttrs.isDir())
                    linkedFolders.append(e.name.toByteArray());
            }
            if ((++sinceCheck & 63) == 0 && wasKilled())
                return int(ErrCancelled);
            return 0;
        });
        if (!r.ok()) {
            if (folder.rel.isEmpty()) {
                if (!retried && !fresh && listed == 0 && connectionLost(r)) {
                    // An idle connection that went away meanwhile: once more on a new one.
                    retried = true;
                    c = ensureConnected(&fresh);
                    if (!c.ok())
                        return c;
                    todo.append(folder);
                    continue;
                }
                if (r.error == ErrDoesNotExist && r.path == folder.path) {
                    // OPENDIR of a file says "no such file" on some servers: look closer.
                    Attributes a;
                    if (m_session.stat(folder.path, &a).ok() && !a.isDir())
                        return WorkerResult::fail(ErrIsNotDirectory, url);
                }
                return fail(r, url);
            }
            if (r.failure == Session::Failure::None && r.error != ErrCancelled
                && (r.error == ErrAccessDenied || r.error == ErrDoesNotExist || r.error == ErrIsNotDirectory)) {
                // Unreadable, or gone meanwhile: listed, not entered.
                qCDebug(QVFS_SFTP) << "not entering" << folder.path << r.error;
                ++skipped;
                continue;
            }
            return fail(r, urlOf(folder.path));
        }
        if (wasKilled())
            return WorkerResult::fail(ErrCancelled, url);
        const auto prefix = [&folder](const QByteArray &n) { return Internal::joinPath(folder.rel, n); };
        const auto childPath = [&folder](const QByteArray &n) { return Internal::joinPath(folder.path, n); };
        const auto tooDeep = [&](const QByteArray &n) {
            if (prefix(n).size() <= MaxTreePathBytes)
                return false;
            leftOut(urlOf(childPath(n)), ErrUrlTooLong); // listed, not entered
            return true;
        };
        subfolders.removeIf(tooDeep);
        linkedFolders.removeIf(tooDeep);
        for (const QByteArray &n : std::as_const(subfolders)) {
            if (follow) {
                // A real folder reached earlier through a link is not listed twice.
                QByteArray canonical;
                if (m_session.realPath(childPath(n), &canonical).ok() && !visited.contains(canonical))
                    visited.insert(canonical);
                else
                    continue;
            }
            todo.append({ prefix(n), childPath(n) });
        }
        for (const QByteArray &n : std::as_const(linkedFolders)) {
            QByteArray canonical;
            if (!m_session.realPath(childPath(n), &canonical).ok() || visited.contains(canonical))
                continue;
            visited.insert(canonical);
            todo.append({ prefix(n), canonical });
        }
    }
    if (skipped)
        setResult(ResultKey::SkippedFolders, skipped);
    return WorkerResult::pass();
}

WorkerResult SftpWorker::stat(const StatRequest &request)
{
    const QUrl &url = request.url;
    const Details details = request.details;
    bool fresh = false;
    QByteArray path;
    WorkerResult c = connectedRedirectedPath(url, &path, &fresh);
    if (!c.ok())
        return c;
    Attributes a;
    Result r = m_session.lstat(path, &a);
    if (!r.ok() && !fresh && connectionLost(r)) {
        c = ensureConnected(&fresh);
        if (!c.ok())
            return c;
        r = m_session.lstat(path, &a);
    }
    if (!r.ok())
        return fail(r, url);
    QByteArray target;
    bool hasTarget = false;
    if (a.isSymLink() && (details & (DetailBasic | DetailResolveSymlink))) {
        r = m_session.readLink(path, &target);
        if (!r.ok() && r.failure != Session::Failure::None)
            return fail(r, url);
        hasTarget = r.ok();
        Attributes t;
        if ((details & DetailResolveSymlink) && m_session.stat(path, &t).ok())
            a = t; // the target's description, with the link's name and target
    }
    if (details & DetailUser)
        lookUpNames(a); // no longname in a stat's reply: the server says (once per id)
    QByteArray name = Url::fileName(url);
    if (name.isEmpty())
        name = path == "/" ? QByteArrayLiteral("/") : path.mid(path.lastIndexOf('/') + 1);
    const QByteArrayView view(target);
    addEntry(name, a, details, hasTarget ? &view : nullptr);
    return WorkerResult::pass();
}

} // namespace Qvfs
