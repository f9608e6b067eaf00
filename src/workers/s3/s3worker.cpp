// SPDX-License-Identifier: LGPL-2.1-or-later
// The s3 worker: keys, URL and error mapping, and the read side (stat, list, get, free
// space). Writes (put, mkdir, delete) are in s3worker_write.cpp, copies and renames in
// s3copybackend.cpp.
#include "s3worker.h"

#include "davclient_p.h"
#include "localfilewriter.h"
#include "s3_debug.h"
#include "url.h"

#include <QDir>
#include <QFile>
#include <QSet>

namespace Qvfs
{

using namespace S3;

namespace
{

bool isHidden(QByteArrayView name)
{
    const qsizetype slash = name.lastIndexOf('/');
    return (slash >= 0 ? name.sliced(slash + 1) : name).startsWith('.');
}

// The [section] of an AWS INI file \a path as name → value.
QHash<QByteArray, QByteArray> iniSection(const QString &path, const QByteArray &section)
{
    QHash<QByteArray, QByteArray> values;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return values;
    bool inside = false;
    while (!f.atEnd()) {
        const QByteArray line = f.readLine().trimmed();
        if (line.isEmpty() || line.startsWith('#') || line.startsWith(';'))
            continue;
        if (line.startsWith('[')) {
            inside = line.mid(1, line.indexOf(']') - 1).simplified() == section;
            continue;
        }
        const qsizetype eq = line.indexOf('=');
        if (inside && eq > 0)
            values.insert(line.left(eq).trimmed().toLower(), line.mid(eq + 1).trimmed());
    }
    return values;
}

QString awsFile(const char *variable, const char *name)
{
    const QString set = qEnvironmentVariable(variable);
    if (!set.isEmpty())
        return set;
    return QDir::homePath() + QStringLiteral("/.aws/") + QLatin1String(name);
}

} // namespace

S3Worker::S3Worker()
    : WorkerBase(QByteArrayLiteral("s3"), EventLoop)
{
    bool set = false;
    const qint64 part = qEnvironmentVariable("QVFS_S3_PART_SIZE").toLongLong(&set);
    if (set && part >= 5 * 1024 * 1024)
        m_partSize = part;
    const qint64 copyPart = qEnvironmentVariable("QVFS_S3_COPY_PART_SIZE").toLongLong(&set);
    if (set && copyPart >= 5 * 1024 * 1024)
        m_copyPartSize = copyPart;
    const qint64 cutoff = qEnvironmentVariable("QVFS_S3_UPLOAD_CUTOFF").toLongLong(&set);
    if (set && cutoff >= 0)
        m_uploadCutoff = cutoff;
    const int inFlight = qEnvironmentVariableIntValue("QVFS_S3_UPLOAD_CONCURRENCY", &set);
    if (set && inFlight > 0)
        m_inFlight = qMin(inFlight, 16);
}

S3Worker::~S3Worker() = default;

void S3Worker::setHost(const QUrl &host)
{
    Q_UNUSED(host)
    // Another endpoint or user: the client and its connections stay, the keys are found
    // again (the URL's, the environment's, the profile's, or asked).
    m_keysSet = false;
    m_keysAsked = false;
}

namespace
{

// The profile's name (AWS_PROFILE, else "default").
QByteArray awsProfile()
{
    const QByteArray profile = qgetenv("AWS_PROFILE");
    return profile.isEmpty() ? QByteArrayLiteral("default") : profile;
}

// The profile's section of the config file. A nested section ("s3 =" and indented lines
// below it, as the AWS CLI writes addressing_style) comes flattened into it.
QHash<QByteArray, QByteArray> awsConfig()
{
    const QByteArray profile = awsProfile();
    return iniSection(awsFile("AWS_CONFIG_FILE", "config"), profile == "default" ? profile : "profile " + profile);
}

} // namespace

bool S3Worker::configuredKeys(Keys *keys, QByteArray *region) const
{
    *region = qgetenv("AWS_REGION");
    if (region->isEmpty())
        *region = qgetenv("AWS_DEFAULT_REGION");
    keys->accessKey = qgetenv("AWS_ACCESS_KEY_ID");
    keys->secretKey = qgetenv("AWS_SECRET_ACCESS_KEY");
    keys->sessionToken = qgetenv("AWS_SESSION_TOKEN");
    const QByteArray profile = awsProfile();
    const auto config = awsConfig();
    if (region->isEmpty())
        *region = config.value("region");
    if (keys->isValid())
        return true;
    const auto credentials = iniSection(awsFile("AWS_SHARED_CREDENTIALS_FILE", "credentials"), profile);
    keys->accessKey = credentials.value("aws_access_key_id", config.value("aws_access_key_id"));
    keys->secretKey = credentials.value("aws_secret_access_key", config.value("aws_secret_access_key"));
    keys->sessionToken = credentials.value("aws_session_token", config.value("aws_session_token"));
    if (region->isEmpty())
        *region = credentials.value("region");
    return keys->isValid();
}

bool S3Worker::askKeys(const QUrl &url, bool retry)
{
    PasswordQuestion q;
    q.url = url.adjusted(QUrl::RemovePath | QUrl::RemoveQuery | QUrl::RemoveFragment | QUrl::RemovePassword);
    q.url.setPath(QStringLiteral("/"));
    q.user = url.userName(QUrl::FullyDecoded);
    q.realm = QStringLiteral("S3");
    q.retry = retry;
    const Credentials answer = askPassword(q);
    if (!answer.answered || answer.user.isEmpty())
        return false;
    m_s3->setKeys(Keys { answer.user.toUtf8(), answer.password.toUtf8(), QByteArray() });
    m_keysAsked = true;
    m_keysSet = true;
    return true;
}

WorkerResult S3Worker::begin(const QUrl &url, Location *at)
{
    if (!Location::parse(url, at))
        return WorkerResult::fail(ErrMalformedUrl, url);
    if (!m_http) {
        m_http = std::make_unique<Http::HttpClient>();
        Http::HttpClient::Callbacks cb;
        cb.cancelled = [this] { return wasKilled(); };
        m_http->setCallbacks(cb);
        // Downloads read 1 MiB at a time (the reply's buffer too): at 256 KiB a loopback
        // GET spent its time in readyRead rounds.
        m_http->setChunkSize(1024 * 1024);
        m_s3 = std::make_unique<Client>(m_http.get());
        bool set = false;
        const qint64 skew = qEnvironmentVariable("QVFS_S3_CLOCK_OFFSET").toLongLong(&set);
        if (set)
            m_s3->setClockOffset(skew); // tests of a skewed clock
        // The profile's addressing style, as the AWS CLI reads it (whatever the keys come from).
        const QByteArray style = awsConfig().value("addressing_style").toLower();
        m_s3->setVirtualHosted(style == "virtual" || style == "auto");
    }
    if (m_keysSet)
        return WorkerResult::pass();
    Keys keys;
    QByteArray region;
    if (!url.userName().isEmpty() && !url.password().isEmpty()) {
        // the URL's keys: no credentials are read from files (the addressing style above is)
        keys = Keys { url.userName(QUrl::FullyDecoded).toUtf8(), url.password(QUrl::FullyDecoded).toUtf8(), {} };
        region = qgetenv("AWS_REGION");
        m_s3->setRegion(region.isEmpty() ? qgetenv("AWS_DEFAULT_REGION") : region);
    } else if (configuredKeys(&keys, &region)) {
        m_s3->setRegion(region);
    } else {
        if (!askKeys(url, false))
            return WorkerResult::fail(ErrCannotAuthenticate, at->url);
        return WorkerResult::pass();
    }
    m_s3->setKeys(keys);
    m_keysSet = true;
    return WorkerResult::pass();
}

WorkerResult S3Worker::result(const S3::Result &r)
{
    if (r.ok())
        return WorkerResult::pass();
    if (wasKilled())
        return WorkerResult::fail(ErrCancelled);
    if (r.error == ErrCannotAuthenticate && m_keysAsked)
        m_keysSet = false; // ask again next time (retry)
    return WorkerResult::fail(r.error, r.arg1, r.arg2);
}

S3::Result S3Worker::hasKeysUnder(const Location &at, const QByteArray &prefix, bool *any)
{
    *any = false;
    const S3::Result r = m_s3->list(
        at, prefix, false,
        [&](const ListEntry &) {
            *any = true;
            return false; // one is enough
        },
        1);
    return *any ? S3::Result::pass() : r;
}

WorkerResult S3Worker::find(const Location &at, Found *found)
{
    *found = Found();
    if (at.bucket.isEmpty()) {
        found->kind = Found::Folder;
        found->isBucketRoot = true;
        return WorkerResult::pass();
    }
    QByteArray key = at.key;
    while (key.endsWith('/'))
        key.chop(1);
    if (key.isEmpty()) {
        const S3::Result r = m_s3->headBucket(at);
        if (!r.ok())
            return result(r);
        found->kind = Found::Folder;
        return WorkerResult::pass();
    }
    const Location object = at.withKey(key);
    S3::Result r = m_s3->head(object, &found->info);
    if (r.ok()) {
        found->kind = Found::File;
        return WorkerResult::pass();
    }
    if (r.error != ErrDoesNotExist)
        return result(r);
    bool any = false;
    r = hasKeysUnder(at, key + '/', &any);
    if (!r.ok())
        return result(r);
    if (!any)
        return WorkerResult::fail(ErrDoesNotExist, at.url);
    found->kind = Found::Folder;
    return WorkerResult::pass();
}

WorkerResult S3Worker::beginAndFind(const QUrl &url, Location *at, Found *found)
{
    WorkerResult w = begin(url, at);
    if (!w.ok())
        return w;
    w = find(*at, found);
    if (!w.ok() && w.code() == ErrCannotAuthenticate && m_keysAsked && askKeys(url, true))
        w = find(*at, found);
    return w;
}

WorkerResult S3Worker::readResult(const Location &at, const S3::Result &r)
{
    if (r.error == ErrDoesNotExist) {
        Found found;
        if (find(at, &found).ok() && found.kind == Found::Folder)
            return WorkerResult::fail(ErrIsDirectory, at.url);
    }
    return result(r);
}

void S3Worker::addEntry(QByteArrayView name, bool folder, qint64 size, std::optional<qint64> mtime, Details details)
{
    beginEntry();
    addString(Name, name);
    if (details & DetailBasic) {
        addNumber(Type, qint64(folder ? FileType::Directory : FileType::Regular));
        if (!folder && size >= 0)
            addNumber(Size, size);
        if (isHidden(name))
            addNumber(Hidden, 1);
    }
    if ((details & DetailTime) && mtime)
        addNumber(MTime, *mtime);
    if (details & DetailMimeType)
        addAtom(MimeType, folder ? QByteArray("inode/directory") : Http::DavClient::guessMimeType(name));
    endEntry();
}

// ---------------------------------------------------------------- stat

WorkerResult S3Worker::stat(const StatRequest &request)
{
    Location at;
    Found found;
    const WorkerResult w = beginAndFind(request.url, &at, &found);
    if (!w.ok())
        return w;
    QByteArray name = Url::fileName(request.url);
    if (name.isEmpty())
        name = QByteArrayLiteral("/");
    addEntry(name, found.kind == Found::Folder, found.info.size, found.info.mtime, request.details);
    return WorkerResult::pass();
}

// ---------------------------------------------------------------- free space

WorkerResult S3Worker::freeSpace(const FreeSpaceRequest &request)
{
    Location at;
    Found found;
    const WorkerResult w = beginAndFind(request.url, &at, &found);
    if (!w.ok())
        return w;
    qCDebug(QVFS_S3) << "free space of" << request.url.toDisplayString() << "is unknown: S3 has no such figure";
    return WorkerResult::pass(); // no figure set: unknown to the application
}

// ---------------------------------------------------------------- list

WorkerResult S3Worker::listDir(const ListRequest &request)
{
    Location at;
    WorkerResult w = begin(request.url, &at);
    if (!w.ok())
        return w;
    if (at.bucket.isEmpty()) {
        const S3::Result r = m_s3->listBuckets(at, [&](const ListEntry &e) {
            if (!Url::isSafeName(e.key)) {
                leftOutUnsafeName(at.url, e.key);
                return !wasKilled();
            }
            addEntry(e.key, true, -1, e.mtime, request.details);
            return !wasKilled();
        });
        return result(r);
    }
    QByteArray prefix = at.key;
    while (prefix.endsWith('/'))
        prefix.chop(1);
    if (!prefix.isEmpty())
        prefix += '/';
    bool any = false; // the folder exists: a key (or its marker) is under it
    QSet<QByteArray> folders; // a recursive listing's folders, made from the keys' paths
    const auto emitFolder = [&](const QByteArray &rel) {
        if (folders.contains(rel))
            return;
        folders.insert(rel);
        addEntry(rel, true, -1, std::nullopt, request.details);
    };
    S3::Result r = m_s3->list(at, prefix, !request.recursive, [&](const ListEntry &e) {
        any = true;
        if (wasKilled())
            return false;
        QByteArray rel = e.key.mid(prefix.size());
        const bool folder = e.isPrefix || rel.endsWith('/');
        while (rel.endsWith('/'))
            rel.chop(1);
        if (rel.isEmpty())
            return true; // the folder's own marker
        const QList<QByteArray> segments = rel.split('/');
        for (const QByteArray &s : segments) {
            if (!Url::isSafeName(s)) {
                leftOutUnsafeName(at.url, rel);
                return true;
            }
        }
        if (request.recursive) {
            // the folders on the way, once each (keys come in order, markers or not)
            for (qsizetype i = 0, slash = rel.indexOf('/'); slash > 0; slash = rel.indexOf('/', slash + 1), ++i)
                emitFolder(rel.left(slash));
            if (folder)
                emitFolder(rel);
            else
                addEntry(rel, false, e.size, e.mtime, request.details);
            return true;
        }
        addEntry(rel, folder, e.size, e.mtime, request.details);
        return true;
    });
    if (wasKilled())
        return WorkerResult::fail(ErrCancelled);
    if (!r.ok())
        return result(r);
    if (!any && !prefix.isEmpty()) {
        // nothing under it: a file, or nothing at all
        Found found;
        w = find(at, &found);
        if (!w.ok())
            return w;
        if (found.kind == Found::File)
            return WorkerResult::fail(ErrIsNotDirectory, at.url);
    }
    return WorkerResult::pass();
}

// ---------------------------------------------------------------- get

WorkerResult S3Worker::get(const GetRequest &request)
{
    Location at;
    WorkerResult w = begin(request.url, &at);
    if (!w.ok())
        return w;
    if (at.key.isEmpty() || at.key.endsWith('/'))
        return WorkerResult::fail(ErrIsDirectory, at.url);
    qint64 done = 0;
    const S3::Result r = m_s3->get(
        at, request.offset, -1,
        [&](const ObjectInfo &info) {
            mimeType(QString::fromLatin1(Http::DavClient::guessMimeType(at.key)));
            if (info.size >= 0)
                setTotals(qMax<qint64>(info.size - request.offset, 0), 1, -1);
        },
        [&](QByteArrayView chunk) {
            data(chunk); // blocks while the application is slow: the server waits
            done += chunk.size();
            setProcessed(done);
            return !wasKilled();
        });
    if (r.ok())
        setProcessed(done, 1);
    return readResult(at, r);
}

// ---------------------------------------------------------------- copyToFile

WorkerResult S3Worker::copyToFile(const FileCopyRequest &request)
{
    Location at;
    WorkerResult w = begin(request.source, &at);
    if (!w.ok())
        return w;
    if (!Url::isLocalFile(request.destination))
        return WorkerResult::fail(ErrUnsupportedAction, at.url);
    if (at.key.isEmpty() || at.key.endsWith('/'))
        return WorkerResult::fail(ErrIsDirectory, at.url);
    const QByteArray path = Url::localPath(request.destination);
    if (path.isEmpty())
        return WorkerResult::fail(ErrMalformedUrl, request.destination);
    // The local side as a local copy has it: a nameless file in the destination's folder,
    // linked into place only once complete; nothing is left after an error or a kill.
    LocalFileWriter writer;
    w = writer.open(path, request.overwrite, request.permissions, request.expectedParent);
    if (!w.ok())
        return w;
    qint64 done = 0;
    const S3::Result r = m_s3->get(
        at, 0, -1, [&](const ObjectInfo &info) { setTotals(info.size, 1, -1); },
        [&](QByteArrayView chunk) {
            w = writer.write(chunk);
            if (!w.ok())
                return false;
            done += chunk.size();
            setProcessed(done);
            return !wasKilled();
        });
    if (!w.ok())
        return w; // the local side failed (disk full ...)
    if (!r.ok())
        return readResult(at, r);
    if (request.mtime >= 0)
        writer.setModificationTime(request.mtime, request.mtimeNs);
    w = writer.commit();
    if (w.ok())
        setProcessed(done, 1);
    return w;
}

} // namespace Qvfs
