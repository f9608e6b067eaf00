// SPDX-License-Identifier: LGPL-2.1-or-later
#include "keys_p.h"
#include "requests_p.h"

#include <limits>

namespace Qvfs::Internal
{

namespace
{
constexpr int MaxUrls = 65536;
constexpr qsizetype MaxUrlBytes = 64 * 1024;

using Cmd = Wire::Command;

WireCommand command(Cmd c, QList<QUrl> urls)
{
    WireCommand w;
    w.command = c;
    w.urls = std::move(urls);
    return w;
}

bool is(const WireCommand &c, Cmd want, int minUrls)
{
    return c.command == want && c.urls.size() >= minUrls;
}

void setFlag(MetaData &m, const char *key, bool on)
{
    if (on)
        m.setNumber(key, 1);
}

bool flag(const MetaData &m, const char *key, bool fallback = false)
{
    return m.number(key, fallback ? 1 : 0) != 0;
}

void setIdentity(MetaData &m, const FileIdentity &id)
{
    if (id.isValid()) {
        m.setNumber(Keys::Device, id.device);
        m.setNumber(Keys::Inode, id.inode);
    }
}

void setParentIdentity(MetaData &m, const FileIdentity &id)
{
    if (id.isValid()) {
        m.setNumber(Keys::ParentDevice, id.device);
        m.setNumber(Keys::ParentInode, id.inode);
    }
}

FileIdentity parentIdentity(const MetaData &m)
{
    FileIdentity id;
    if (m.isNumber(Keys::ParentInode) && m.isNumber(Keys::ParentDevice)) {
        id.device = m.number(Keys::ParentDevice);
        id.inode = m.number(Keys::ParentInode);
    }
    return id;
}

FileIdentity identity(const MetaData &m)
{
    FileIdentity id;
    if (m.isNumber(Keys::Inode) && m.isNumber(Keys::Device)) {
        id.device = m.number(Keys::Device);
        id.inode = m.number(Keys::Inode);
    }
    return id;
}

void setTime(MetaData &m, qint64 seconds, qint64 nanoseconds)
{
    m.setNumber(Keys::MTime, seconds);
    m.setNumber(Keys::MTimeNs, nanoseconds);
}

int permissionsOf(const MetaData &m)
{
    const qint64 p = m.number(Keys::Permissions, -1);
    return p < 0 ? -1 : int(p & 07777);
}

template<typename E>
E boundedEnum(const MetaData &m, const char *key, E fallback, E last)
{
    const qint64 v = m.number(key, qint64(fallback));
    return v >= 0 && v <= qint64(last) ? E(v) : fallback;
}

// The answers made of an action and "apply to all" (ConflictAnswer, UnreadableAnswer).
template<typename Answer>
MetaData encodeActionAnswer(const Answer &a)
{
    MetaData m;
    if (!a.answered)
        return m;
    m.setNumber(Keys::Action, qint64(a.action));
    setFlag(m, Keys::ApplyToAll, a.applyToAll);
    return m;
}

template<typename Answer, typename Action>
Answer decodeActionAnswer(const MetaData &m, Action fallback, Action last)
{
    Answer a;
    if (!m.isNumber(Keys::Action))
        return a;
    a.action = boundedEnum(m, Keys::Action, fallback, last);
    a.applyToAll = flag(m, Keys::ApplyToAll);
    a.answered = true;
    return a;
}
} // namespace

QByteArray encodeCommand(const WireCommand &c)
{
    QByteArray out;
    Wire::appendVarint(out, quint64(c.command));
    Wire::appendVarint(out, quint64(c.urls.size()));
    for (const QUrl &u : c.urls)
        Wire::appendBytes(out, u.toEncoded());
    c.options.encode(out);
    return out;
}

bool decodeCommand(QByteArrayView payload, WireCommand *c)
{
    Wire::Reader r(payload);
    c->command = Cmd(r.varint(1000));
    const quint64 n = r.varint(MaxUrls);
    c->urls.clear();
    for (quint64 i = 0; i < n && r.ok(); ++i) {
        const QByteArrayView u = r.bytes(MaxUrlBytes);
        if (r.ok())
            c->urls.append(QUrl::fromEncoded(u.toByteArray(), QUrl::StrictMode));
    }
    if (!r.ok())
        return false;
    qsizetype used = 0;
    c->options = MetaData();
    return c->options.decode(QByteArrayView(r.pos(), r.remaining()), &used) && used == r.remaining();
}

QUrl resultEntryUrl(const WireCommand &c)
{
    switch (c.command) {
    case Wire::Command::Mkdir:
    case Wire::Command::Put:
    case Wire::Command::Symlink:
    case Wire::Command::Chmod:
    case Wire::Command::SetModificationTime:
        return c.urls.value(0);
    case Wire::Command::Rename:
    case Wire::Command::CopyFromFile:
        return c.urls.value(1);
    default:
        return {};
    }
}

// ---- requests ----

WireCommand toWire(const ListRequest &r)
{
    WireCommand w = command(r.recursive ? Cmd::ListRecursive : Cmd::ListDir, { r.url });
    w.options.setNumber(Keys::Details, qint64(uint(r.details)));
    setFlag(w.options, Keys::FollowSymlinks, r.followSymlinks);
    return w;
}

bool fromWire(const WireCommand &c, ListRequest *r)
{
    if (!(is(c, Cmd::ListDir, 1) || is(c, Cmd::ListRecursive, 1)))
        return false;
    r->url = c.urls.at(0);
    r->recursive = c.command == Cmd::ListRecursive;
    r->details = Details(uint(c.options.number(Keys::Details, DetailsDefault)));
    r->followSymlinks = flag(c.options, Keys::FollowSymlinks);
    return true;
}

WireCommand toWire(const StatRequest &r)
{
    WireCommand w = command(Cmd::Stat, { r.url });
    w.options.setNumber(Keys::Details, qint64(uint(r.details)));
    return w;
}

bool fromWire(const WireCommand &c, StatRequest *r)
{
    if (!is(c, Cmd::Stat, 1))
        return false;
    r->url = c.urls.at(0);
    r->details = Details(uint(c.options.number(Keys::Details, DetailsDefault)));
    return true;
}

WireCommand toWire(const MkdirRequest &r)
{
    WireCommand w = command(Cmd::Mkdir, { r.url });
    w.options.setNumber(Keys::Permissions, r.permissions);
    setFlag(w.options, Keys::Parents, r.parents);
    setParentIdentity(w.options, r.expectedParent);
    return w;
}

bool fromWire(const WireCommand &c, MkdirRequest *r)
{
    if (!is(c, Cmd::Mkdir, 1))
        return false;
    r->url = c.urls.at(0);
    r->permissions = permissionsOf(c.options);
    r->parents = flag(c.options, Keys::Parents);
    r->expectedParent = parentIdentity(c.options);
    return true;
}

WireCommand toWire(const DeleteRequest &r)
{
    WireCommand w = command(Cmd::Delete, { r.url });
    w.options.setNumber(Keys::DeleteScope, qint64(r.scope));
    return w;
}

bool fromWire(const WireCommand &c, DeleteRequest *r)
{
    if (!is(c, Cmd::Delete, 1))
        return false;
    r->url = c.urls.at(0);
    // Unknown values are the narrowest scope: a newer application never gets more deleted.
    r->scope
        = boundedEnum(c.options, Keys::DeleteScope, DeleteRequest::Scope::NotFolder, DeleteRequest::Scope::NotFolder);
    return true;
}

WireCommand toWire(const RenameRequest &r)
{
    WireCommand w = command(Cmd::Rename, { r.source, r.destination });
    setFlag(w.options, Keys::Overwrite, r.overwrite);
    return w;
}

bool fromWire(const WireCommand &c, RenameRequest *r)
{
    if (!is(c, Cmd::Rename, 2))
        return false;
    r->source = c.urls.at(0);
    r->destination = c.urls.at(1);
    r->overwrite = flag(c.options, Keys::Overwrite);
    return true;
}

WireCommand toWire(const CopyRequest &r)
{
    QList<QUrl> urls = r.sources;
    urls.append(r.destination);
    WireCommand w = command(Cmd::Copy, std::move(urls));
    w.options.setNumber(Keys::CopyTarget, qint64(r.target));
    w.options.setBytes(Keys::Conflict, conflictPolicyName(r.conflict));
    setFlag(w.options, Keys::Move, r.move);
    w.options.setNumber(Keys::Preserve, r.preserve ? 1 : 0);
    w.options.setNumber(Keys::Count, r.countFirst ? 1 : 0);
    setFlag(w.options, Keys::ReportItems, r.reportItems);
    return w;
}

bool fromWire(const WireCommand &c, CopyRequest *r)
{
    if (!is(c, Cmd::Copy, 2))
        return false;
    r->sources = c.urls.mid(0, c.urls.size() - 1);
    r->destination = c.urls.last();
    r->target = boundedEnum(c.options, Keys::CopyTarget, CopyRequest::Target::As, CopyRequest::Target::IntoIfFolder);
    r->conflict = conflictPolicyFromName(c.options.bytes(Keys::Conflict));
    r->move = flag(c.options, Keys::Move);
    r->preserve = flag(c.options, Keys::Preserve, true);
    r->countFirst = flag(c.options, Keys::Count, true);
    r->reportItems = flag(c.options, Keys::ReportItems);
    return true;
}

WireCommand toWire(const TrashRequest &r)
{
    WireCommand w = command(Cmd::Trash, r.urls);
    w.options.setNumber(Keys::TrashAction, qint64(r.action));
    if (r.action == TrashRequest::Action::Restore)
        w.options.setBytes(Keys::Conflict, conflictPolicyName(r.conflict));
    setFlag(w.options, Keys::ReportItems, r.reportItems);
    return w;
}

bool fromWire(const WireCommand &c, TrashRequest *r)
{
    if (!is(c, Cmd::Trash, 1) || !c.options.isNumber(Keys::TrashAction))
        return false;
    const qint64 action = c.options.number(Keys::TrashAction);
    if (action < 0 || action > qint64(TrashRequest::Action::Restore))
        return false; // never guess between trashing and restoring
    r->action = TrashRequest::Action(action);
    r->urls = c.urls;
    r->conflict = conflictPolicyFromName(c.options.bytes(Keys::Conflict));
    r->reportItems = flag(c.options, Keys::ReportItems);
    return true;
}

WireCommand toWire(const GetRequest &r)
{
    WireCommand w = command(Cmd::Get, { r.url });
    if (r.offset > 0)
        w.options.setNumber(Keys::Offset, r.offset);
    setIdentity(w.options, r.expected);
    return w;
}

bool fromWire(const WireCommand &c, GetRequest *r)
{
    if (!is(c, Cmd::Get, 1))
        return false;
    r->url = c.urls.at(0);
    r->offset = qMax<qint64>(0, c.options.number(Keys::Offset, 0));
    r->expected = identity(c.options);
    return true;
}

WireCommand toWire(const PutRequest &r)
{
    WireCommand w = command(Cmd::Put, { r.url });
    w.options.setNumber(Keys::Permissions, r.permissions);
    setFlag(w.options, Keys::Overwrite, r.overwrite);
    if (r.mtime >= 0)
        setTime(w.options, r.mtime, r.mtimeNs);
    if (r.size >= 0)
        w.options.setNumber(Keys::Size, r.size);
    setParentIdentity(w.options, r.expectedParent);
    return w;
}

bool fromWire(const WireCommand &c, PutRequest *r)
{
    if (!is(c, Cmd::Put, 1))
        return false;
    r->url = c.urls.at(0);
    r->permissions = permissionsOf(c.options);
    r->overwrite = flag(c.options, Keys::Overwrite);
    r->mtime = c.options.isNumber(Keys::MTime) ? c.options.number(Keys::MTime) : -1;
    r->mtimeNs = c.options.number(Keys::MTimeNs, 0);
    r->size = c.options.number(Keys::Size, -1);
    r->expectedParent = parentIdentity(c.options);
    return true;
}

WireCommand toWire(const SymlinkRequest &r)
{
    WireCommand w = command(Cmd::Symlink, { r.link });
    w.options.setBytes(Keys::Target, r.target);
    setParentIdentity(w.options, r.expectedParent);
    return w;
}

bool fromWire(const WireCommand &c, SymlinkRequest *r)
{
    if (!is(c, Cmd::Symlink, 1))
        return false;
    r->link = c.urls.at(0);
    r->target = c.options.bytes(Keys::Target);
    r->expectedParent = parentIdentity(c.options);
    return true;
}

WireCommand toWire(const ChmodRequest &r)
{
    WireCommand w = command(Cmd::Chmod, { r.url });
    w.options.setNumber(Keys::Permissions, r.permissions);
    setIdentity(w.options, r.expected);
    return w;
}

bool fromWire(const WireCommand &c, ChmodRequest *r)
{
    if (!is(c, Cmd::Chmod, 1) || !c.options.isNumber(Keys::Permissions))
        return false;
    r->url = c.urls.at(0);
    r->permissions = int(c.options.number(Keys::Permissions) & 07777);
    r->expected = identity(c.options);
    return true;
}

WireCommand toWire(const SetTimeRequest &r)
{
    WireCommand w = command(Cmd::SetModificationTime, { r.url });
    setTime(w.options, r.seconds, r.nanoseconds);
    setIdentity(w.options, r.expected);
    return w;
}

bool fromWire(const WireCommand &c, SetTimeRequest *r)
{
    if (!is(c, Cmd::SetModificationTime, 1))
        return false;
    r->url = c.urls.at(0);
    r->seconds = c.options.number(Keys::MTime);
    r->nanoseconds = qBound(qint64(0), c.options.number(Keys::MTimeNs), qint64(999999999));
    r->expected = identity(c.options);
    return true;
}

WireCommand toWire(const DirectorySizeRequest &r)
{
    return command(Cmd::DirectorySize, { r.url });
}

bool fromWire(const WireCommand &c, DirectorySizeRequest *r)
{
    if (!is(c, Cmd::DirectorySize, 1))
        return false;
    r->url = c.urls.at(0);
    return true;
}

WireCommand toWire(const FreeSpaceRequest &r)
{
    return command(Cmd::FreeSpace, { r.url });
}

bool fromWire(const WireCommand &c, FreeSpaceRequest *r)
{
    if (!is(c, Cmd::FreeSpace, 1))
        return false;
    r->url = c.urls.at(0);
    return true;
}

WireCommand toWire(const FileCopyRequest &r, bool toFile)
{
    WireCommand w = command(toFile ? Cmd::CopyToFile : Cmd::CopyFromFile, { r.source, r.destination });
    setFlag(w.options, Keys::Overwrite, r.overwrite);
    w.options.setNumber(Keys::Permissions, r.permissions);
    if (r.mtime >= 0)
        setTime(w.options, r.mtime, r.mtimeNs);
    setIdentity(w.options, r.expected);
    setParentIdentity(w.options, r.expectedParent);
    if (r.size >= 0)
        w.options.setNumber(Keys::Size, r.size);
    return w;
}

bool fromWire(const WireCommand &c, FileCopyRequest *r)
{
    if (!(is(c, Cmd::CopyToFile, 2) || is(c, Cmd::CopyFromFile, 2)))
        return false;
    r->source = c.urls.at(0);
    r->destination = c.urls.at(1);
    r->overwrite = flag(c.options, Keys::Overwrite);
    r->permissions = permissionsOf(c.options);
    r->mtime = c.options.isNumber(Keys::MTime) ? c.options.number(Keys::MTime) : -1;
    r->mtimeNs = c.options.number(Keys::MTimeNs, 0);
    r->expected = identity(c.options);
    r->expectedParent = parentIdentity(c.options);
    r->size = qMax<qint64>(-1, c.options.number(Keys::Size, -1));
    return true;
}

WireCommand toWire(const WatchRequest &r)
{
    WireCommand w = command(Cmd::Watch, { r.url });
    w.options.setNumber(Keys::Details, qint64(uint(r.details)));
    if (r.pollMs > 0)
        w.options.setNumber(Keys::PollMs, r.pollMs);
    return w;
}

bool fromWire(const WireCommand &c, WatchRequest *r)
{
    if (!is(c, Cmd::Watch, 1))
        return false;
    r->url = c.urls.at(0);
    r->details = Details(uint(c.options.number(Keys::Details, DetailsDefault)));
    r->pollMs = int(qBound(qint64(0), c.options.number(Keys::PollMs, 0), qint64(24 * 3600 * 1000)));
    return true;
}

WireCommand toWire(const OpenRequest &r)
{
    WireCommand w = command(Cmd::Open, { r.url });
    setFlag(w.options, Keys::OpenRead, r.read);
    setFlag(w.options, Keys::OpenWrite, r.write);
    setFlag(w.options, Keys::OpenAppend, r.append);
    setFlag(w.options, Keys::OpenTruncate, r.truncate);
    setFlag(w.options, Keys::OpenCreate, r.create);
    setFlag(w.options, Keys::OpenExclusive, r.exclusive);
    w.options.setNumber(Keys::Permissions, r.permissions);
    return w;
}

bool fromWire(const WireCommand &c, OpenRequest *r)
{
    if (!is(c, Cmd::Open, 1))
        return false;
    r->url = c.urls.at(0);
    r->read = flag(c.options, Keys::OpenRead);
    r->write = flag(c.options, Keys::OpenWrite);
    // What changes the file needs write: a request without it never does.
    r->append = r->write && flag(c.options, Keys::OpenAppend);
    r->truncate = r->write && flag(c.options, Keys::OpenTruncate);
    r->create = r->write && flag(c.options, Keys::OpenCreate);
    r->exclusive = flag(c.options, Keys::OpenExclusive);
    r->permissions = permissionsOf(c.options);
    return r->read || r->write;
}

// ---- an open file ----

namespace
{
// Little-endian fixed-size fields of the data trailers.
void putLe64(char *p, qint64 v)
{
    qToLittleEndian(v, p);
}
void putLe32(char *p, quint32 v)
{
    qToLittleEndian(v, p);
}
qint64 le64(const char *p)
{
    return qFromLittleEndian<qint64>(p);
}
quint32 le32(const char *p)
{
    return qFromLittleEndian<quint32>(p);
}
constexpr quint64 MaxOffset = quint64(std::numeric_limits<qint64>::max());
} // namespace

QByteArray encodeOpened(const OpenedFile &f)
{
    MetaData m;
    m.setNumber(Keys::Size, f.size);
    if (!f.mimeType.isEmpty())
        m.setString(Keys::MimeType, f.mimeType);
    setFlag(m, Keys::CanSeek, f.canSeek);
    setFlag(m, Keys::CanWrite, f.canWrite);
    setFlag(m, Keys::CanTruncate, f.canTruncate);
    setFlag(m, Keys::CanAppend, f.canAppend);
    QByteArray out;
    m.encode(out);
    return out;
}

bool decodeOpened(QByteArrayView payload, OpenedFile *f)
{
    MetaData m;
    qsizetype used = 0;
    if (!m.decode(payload, &used) || used != payload.size())
        return false;
    f->size = qMax<qint64>(-1, m.number(Keys::Size, -1));
    f->mimeType = m.string(Keys::MimeType);
    f->canSeek = flag(m, Keys::CanSeek);
    f->canWrite = flag(m, Keys::CanWrite);
    f->canTruncate = flag(m, Keys::CanTruncate);
    f->canAppend = flag(m, Keys::CanAppend);
    return true;
}

QByteArray encodeFileRead(const FileOperation &o)
{
    QByteArray out;
    Wire::appendVarint(out, o.op);
    Wire::appendVarint(out, quint64(o.offset));
    Wire::appendVarint(out, quint64(o.length));
    return out;
}

QByteArray encodeFileTruncate(const FileOperation &o)
{
    QByteArray out;
    Wire::appendVarint(out, o.op);
    Wire::appendVarint(out, quint64(o.offset));
    return out;
}

QByteArray encodeFileSize(const FileOperation &o)
{
    QByteArray out;
    Wire::appendVarint(out, o.op);
    return out;
}

bool decodeFileOperation(Wire::Msg type, QByteArrayView payload, FileOperation *o)
{
    Wire::Reader r(payload);
    *o = FileOperation();
    o->op = quint32(r.varint(0xffffffffu));
    switch (type) {
    case Wire::Msg::FileRead:
        o->offset = qint64(r.varint(MaxOffset));
        o->length = qint64(r.varint(quint64(Wire::MaxFileRead)));
        break;
    case Wire::Msg::FileTruncate:
        o->offset = qint64(r.varint(MaxOffset));
        break;
    case Wire::Msg::FileSize:
        break;
    default:
        return false;
    }
    return r.ok() && r.atEnd();
}

QByteArray fileWriteTrailer(const FileOperation &o)
{
    QByteArray out(Wire::FileWriteTrailer, Qt::Uninitialized);
    putLe64(out.data(), o.offset < 0 ? -1 : o.offset);
    putLe32(out.data() + 8, o.op);
    return out;
}

bool decodeFileWrite(QByteArray *payload, FileOperation *o)
{
    const qsizetype n = payload->size() - Wire::FileWriteTrailer;
    if (n < 0 || n > Wire::FileChunk)
        return false;
    const char *t = payload->constData() + n;
    *o = FileOperation();
    o->offset = le64(t);
    o->op = le32(t + 8);
    o->length = n;
    if (o->offset < -1)
        return false;
    payload->truncate(n);
    return true;
}

void putFileDataTrailer(char *out, quint32 op, qint64 offset, bool last)
{
    putLe64(out, offset);
    putLe32(out + 8, op);
    out[12] = last ? 1 : 0;
}

bool decodeFileData(QByteArray *payload, quint32 *op, qint64 *offset, bool *last)
{
    const qsizetype n = payload->size() - Wire::FileDataTrailer;
    if (n < 0 || n > Wire::FileChunk)
        return false;
    const char *t = payload->constData() + n;
    *offset = le64(t);
    *op = le32(t + 8);
    const quint8 flags = quint8(t[12]);
    if (*offset < 0 || flags > 1)
        return false;
    *last = flags & 1;
    payload->truncate(n);
    return true;
}

QByteArray encodeFileDone(const FileDone &d)
{
    QByteArray out;
    Wire::appendVarint(out, d.op);
    Wire::appendVarint(out, Wire::zigzag(d.offset));
    Wire::appendVarint(out, Wire::zigzag(d.value));
    return out;
}

bool decodeFileDone(QByteArrayView payload, FileDone *d)
{
    Wire::Reader r(payload);
    d->op = quint32(r.varint(0xffffffffu));
    d->offset = r.svarint();
    d->value = r.svarint();
    return r.ok() && r.atEnd();
}

// ---- questions ----

namespace
{
MetaData question(QuestionKind kind)
{
    MetaData m;
    m.setNumber(Keys::Kind, qint64(kind));
    return m;
}
} // namespace

MetaData encodeQuestion(const ConflictQuestion &q)
{
    MetaData m = question(QuestionKind::Conflict);
    m.setBytes(Keys::Source, q.source.toEncoded());
    m.setBytes(Keys::Destination, q.destination.toEncoded());
    return m;
}

MetaData encodeQuestion(const PasswordQuestion &q)
{
    MetaData m = question(QuestionKind::Password);
    m.setBytes(Keys::Url, q.url.adjusted(QUrl::RemovePassword).toEncoded());
    m.setString(Keys::Realm, q.realm);
    m.setString(Keys::User, q.user);
    if (!q.prompt.isEmpty())
        m.setString(Keys::Prompt, q.prompt);
    setFlag(m, Keys::Retry, q.retry);
    setFlag(m, Keys::SecretOnly, q.secretOnly);
    return m;
}

MetaData encodeQuestion(const TrustQuestion &q)
{
    MetaData m = question(q.kind == QuestionKind::Certificate ? QuestionKind::Certificate : QuestionKind::HostKey);
    m.setString(Keys::Host, q.host);
    m.setString(Keys::Fingerprint, q.fingerprint);
    m.setString(Keys::Detail, q.detail);
    return m;
}

MetaData encodeQuestion(const UnreadableQuestion &q)
{
    MetaData m = question(QuestionKind::Unreadable);
    m.setBytes(Keys::Url, q.url.adjusted(QUrl::RemovePassword).toEncoded());
    m.setNumber(Keys::Error, q.error);
    return m;
}

int questionKind(const MetaData &m)
{
    const qint64 k = m.number(Keys::Kind, 0);
    return k >= int(QuestionKind::Conflict) && k <= int(QuestionKind::Unreadable) ? int(k) : 0;
}

UnreadableQuestion decodeUnreadableQuestion(const MetaData &m)
{
    UnreadableQuestion q;
    q.url = QUrl::fromEncoded(m.bytes(Keys::Url), QUrl::StrictMode);
    q.error = int(qBound(qint64(0), m.number(Keys::Error), qint64(1 << 20)));
    return q;
}

ConflictQuestion decodeConflictQuestion(const MetaData &m)
{
    return ConflictQuestion { QUrl::fromEncoded(m.bytes(Keys::Source), QUrl::StrictMode),
        QUrl::fromEncoded(m.bytes(Keys::Destination), QUrl::StrictMode) };
}

PasswordQuestion decodePasswordQuestion(const MetaData &m)
{
    PasswordQuestion q;
    q.url = QUrl::fromEncoded(m.bytes(Keys::Url), QUrl::StrictMode);
    q.realm = m.string(Keys::Realm);
    q.user = m.string(Keys::User);
    q.prompt = m.string(Keys::Prompt);
    q.retry = flag(m, Keys::Retry);
    q.secretOnly = flag(m, Keys::SecretOnly);
    return q;
}

TrustQuestion decodeTrustQuestion(const MetaData &m)
{
    TrustQuestion q;
    q.kind = questionKind(m) == int(QuestionKind::Certificate) ? QuestionKind::Certificate : QuestionKind::HostKey;
    q.host = m.string(Keys::Host);
    q.fingerprint = m.string(Keys::Fingerprint);
    q.detail = m.string(Keys::Detail);
    return q;
}

MetaData encodeAnswer(const ConflictAnswer &a)
{
    return encodeActionAnswer(a);
}

MetaData encodeAnswer(const Credentials &a)
{
    MetaData m;
    if (!a.answered)
        return m;
    m.setString(Keys::User, a.user);
    m.setString(Keys::Password, a.password);
    m.setNumber(Keys::Remember, a.remember ? 1 : 0);
    return m;
}

MetaData encodeAnswer(Trust trust)
{
    MetaData m;
    if (trust != Trust::Refuse)
        m.setNumber(Keys::Trust, qint64(trust));
    return m;
}

MetaData encodeAnswer(const UnreadableAnswer &a)
{
    return encodeActionAnswer(a);
}

UnreadableAnswer decodeUnreadableAnswer(const MetaData &m)
{
    return decodeActionAnswer<UnreadableAnswer>(m, UnreadableAction::Skip, UnreadableAction::Cancel);
}

ConflictAnswer decodeConflictAnswer(const MetaData &m)
{
    return decodeActionAnswer<ConflictAnswer>(m, ConflictAction::Cancel, ConflictAction::Cancel);
}

Credentials decodeCredentials(const MetaData &m)
{
    Credentials c;
    if (!m.contains(Keys::Password))
        return c;
    c.user = m.string(Keys::User);
    c.password = m.string(Keys::Password);
    c.remember = flag(m, Keys::Remember, true);
    c.answered = true;
    return c;
}

Trust decodeTrust(const MetaData &m)
{
    return boundedEnum(m, Keys::Trust, Trust::Refuse, Trust::Always);
}

// ---- progress ----

namespace
{
constexpr const char *const TotalKeys[3] = { Keys::TotalBytes, Keys::TotalFiles, Keys::TotalDirs };
constexpr const char *const ProcessedKeys[3] = { Keys::Bytes, Keys::Files, Keys::Dirs };
} // namespace

MetaData encodeProgress(const Progress &p)
{
    MetaData m;
    for (int u = 0; u < 3; ++u) {
        if (p.total[size_t(u)] >= 0)
            m.setNumber(TotalKeys[u], p.total[size_t(u)]);
        if (p.processed[size_t(u)] >= 0)
            m.setNumber(ProcessedKeys[u], p.processed[size_t(u)]);
    }
    if (p.skipped >= 0)
        m.setNumber(Keys::Skipped, p.skipped);
    return m;
}

Progress decodeProgress(const MetaData &m)
{
    Progress p;
    for (int u = 0; u < 3; ++u) {
        if (m.isNumber(TotalKeys[u]))
            p.total[size_t(u)] = qMax<qint64>(-1, m.number(TotalKeys[u]));
        if (m.isNumber(ProcessedKeys[u]))
            p.processed[size_t(u)] = qMax<qint64>(-1, m.number(ProcessedKeys[u]));
    }
    if (m.isNumber(Keys::Skipped))
        p.skipped = qMax<qint64>(-1, m.number(Keys::Skipped));
    return p;
}

// ---- redirection and items ----

QByteArray encodeRedirection(const QUrl &url)
{
    QByteArray out;
    Wire::appendBytes(out, url.toEncoded());
    return out;
}

bool decodeRedirection(QByteArrayView payload, QUrl *url)
{
    Wire::Reader r(payload);
    const QByteArrayView u = r.bytes(MaxUrlBytes);
    if (!r.ok() || !r.atEnd())
        return false;
    *url = QUrl::fromEncoded(u.toByteArray(), QUrl::StrictMode);
    return url->isValid();
}

QByteArray encodeItem(CopyItemEvent event, const QUrl &source, const QUrl &destination)
{
    QByteArray out;
    Wire::appendVarint(out, quint64(event));
    Wire::appendBytes(out, source.toEncoded());
    Wire::appendBytes(out, destination.toEncoded());
    return out;
}

bool decodeItem(QByteArrayView payload, CopyItemEvent *event, QUrl *source, QUrl *destination)
{
    Wire::Reader r(payload);
    const quint64 e = r.varint(quint64(CopyItemEvent::Moved));
    const QByteArrayView s = r.bytes(MaxUrlBytes);
    const QByteArrayView d = r.bytes(MaxUrlBytes);
    if (!r.ok() || !r.atEnd() || e < quint64(CopyItemEvent::Copying))
        return false;
    *event = CopyItemEvent(e);
    *source = QUrl::fromEncoded(s.toByteArray(), QUrl::StrictMode);
    *destination = QUrl::fromEncoded(d.toByteArray(), QUrl::StrictMode);
    return true;
}

QByteArray encodeLeftOut(const QUrl &url, int error)
{
    QByteArray out;
    Wire::appendBytes(out, url.toEncoded());
    Wire::appendVarint(out, quint64(qMax(error, 0)));
    return out;
}

bool decodeLeftOut(QByteArrayView payload, QUrl *url, int *error)
{
    Wire::Reader r(payload);
    const QByteArrayView u = r.bytes(MaxUrlBytes);
    const quint64 e = r.varint(1u << 20);
    if (!r.ok() || !r.atEnd())
        return false;
    *url = QUrl::fromEncoded(u.toByteArray(), QUrl::StrictMode);
    *error = int(e);
    return true;
}

// ---- watches ----

namespace
{
constexpr qsizetype MaxChangeName = 64 * 1024;
} // namespace

QByteArray encodeChanges(const WatchChanges &c)
{
    QByteArray out;
    Wire::appendVarint(out, quint64(c.kind));
    switch (c.kind) {
    case WatchChanges::Kind::Listed:
        Wire::appendVarint(out, quint64(c.mode));
        break;
    case WatchChanges::Kind::Commit:
        Wire::appendVarint(out, quint64(c.removed.size()));
        for (const QByteArray &n : c.removed)
            Wire::appendBytes(out, n);
        Wire::appendVarint(out, quint64(c.renamed.size()));
        for (const auto &p : c.renamed) {
            Wire::appendBytes(out, p.first);
            Wire::appendBytes(out, p.second);
        }
        break;
    case WatchChanges::Kind::Moved:
        Wire::appendBytes(out, c.url.toEncoded());
        break;
    case WatchChanges::Kind::Resync:
    case WatchChanges::Kind::Gone:
        break;
    }
    return out;
}

bool decodeChanges(QByteArrayView payload, WatchChanges *c)
{
    Wire::Reader r(payload);
    const quint64 kind = r.varint(quint64(WatchChanges::Kind::Moved));
    if (!r.ok() || kind == 0)
        return false;
    *c = WatchChanges();
    c->kind = WatchChanges::Kind(kind);
    switch (c->kind) {
    case WatchChanges::Kind::Listed:
        c->mode = WatchMode(r.varint(quint64(WatchMode::PollingAtLimit)));
        break;
    case WatchChanges::Kind::Commit: {
        // Every name costs at least one byte: the counts are bounded by the payload.
        const quint64 n = r.varint(quint64(r.remaining()));
        c->removed.reserve(qsizetype(n));
        for (quint64 i = 0; i < n && r.ok(); ++i)
            c->removed.append(r.bytes(MaxChangeName).toByteArray());
        const quint64 m = r.varint(quint64(r.remaining()) / 2);
        c->renamed.reserve(qsizetype(m));
        for (quint64 i = 0; i < m && r.ok(); ++i) {
            const QByteArrayView from = r.bytes(MaxChangeName);
            const QByteArrayView to = r.bytes(MaxChangeName);
            c->renamed.append({ from.toByteArray(), to.toByteArray() });
        }
        break;
    }
    case WatchChanges::Kind::Moved: {
        const QByteArrayView u = r.bytes(MaxUrlBytes);
        if (r.ok())
            c->url = QUrl::fromEncoded(u.toByteArray(), QUrl::StrictMode);
        if (!c->url.isValid())
            return false;
        break;
    }
    case WatchChanges::Kind::Resync:
    case WatchChanges::Kind::Gone:
        break;
    }
    return r.ok() && r.atEnd();
}

} // namespace Qvfs::Internal
