// SPDX-License-Identifier: LGPL-2.1-or-later
// The smb:// worker: transfers, trees and single operations.
#include "smbworker.h"

#include "copyrules.h"
#include "error.h"
#include "fileops_base_p.h"
#include "localfilewriter.h"
#include "smb_debug.h"
#include "smblane_p.h"
#include "url.h"

#include <QMimeDatabase>
#include <QRandomGenerator>
#include <QVarLengthArray>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>

namespace Qvfs
{

using FileOps::Operation;

namespace
{

// libsmbclient pipelines reads only inside one call, up to the server's maximum read (8
// MiB on Samba and Windows) per request in flight, and writes not at all: a call costs at
// least one round trip, and nothing is in flight between two calls (frontier.md §1.3).
// A large transfer therefore goes over several connections, the worker's and its lanes'
// (smblane_p.h), taking chunks in turn: while one waits for its answer the others' data
// flows. 8 MiB is one request of the server's maximum size each; each lane has one
// chunk's slot, so a put holds three chunks (24 MiB) at most.
constexpr qint64 ReadChunk = 8 * 1024 * 1024;
constexpr qint64 WriteChunk = 8 * 1024 * 1024;
constexpr int DefaultLanes = 2;
constexpr int MaxLanes = 4;

/*! A size from the environment (bytes; tests make chunks small), else \a fallback. */
qint64 sizeFromEnv(const char *name, qint64 fallback)
{
    bool ok = false;
    const qint64 v = qEnvironmentVariable(name).toLongLong(&ok);
    return ok && v >= 4096 && v <= 64 * 1024 * 1024 ? v : fallback;
}

qint64 readChunk()
{
    static const qint64 size = sizeFromEnv("QVFS_SMB_READ_CHUNK", ReadChunk);
    return size;
}

qint64 writeChunk()
{
    static const qint64 size = sizeFromEnv("QVFS_SMB_WRITE_CHUNK", WriteChunk);
    return size;
}

/*! How many lanes a large transfer takes (QVFS_SMB_LANES=N, 0: the worker's connection only). */
int laneCount()
{
    static const int count = [] {
        bool ok = false;
        const int n = qEnvironmentVariableIntValue("QVFS_SMB_LANES", &ok);
        return ok ? qBound(0, n, MaxLanes) : DefaultLanes;
    }();
    return count;
}

/*!
 * QVFS_SMB_LANES=force, for the tests: the lanes are waited for before the second chunk,
 * and what they fail to do is an error instead of work for the worker, so that a
 * transfer that succeeds went over every connection.
 */
bool lanesForced()
{
    static const bool forced = qEnvironmentVariable("QVFS_SMB_LANES") == QLatin1String("force");
    return forced;
}

} // namespace

// ---------------------------------------------------------------- get and put

WorkerResult SmbWorker::openRemote(const QUrl &url, int flags, SMBCFILE **file, const QUrl &path)
{
    const QByteArray target = lib(path.isEmpty() ? url : path);
    return run(url, int(flags & (O_WRONLY | O_RDWR) ? Operation::Write : Operation::Read), [&] {
        *file = smbc_getFunctionOpen(m_ctx.get())(m_ctx.get(), target.constData(), flags, 0644);
        return *file ? 0 : -1;
    });
}

WorkerResult SmbWorker::openForReading(const QUrl &url, std::optional<Smb::File> *file, struct stat *st)
{
    WorkerResult r = ensureContext();
    if (!r.ok())
        return r;
    file->emplace(m_ctx.get());
    // Opened, then asked about through the handle: one round trip each, where a stat by
    // name costs three (open, query, close) before the open.
    r = openRemote(url, O_RDONLY, &(*file)->handle());
    if (!r.ok())
        return r;
    SMBCCTX *ctx = m_ctx.get();
    if (smbc_getFunctionFstat(ctx)(ctx, (*file)->handle(), st) != 0)
        return fail(errno, url, int(Operation::Read));
    if (S_ISDIR(st->st_mode))
        return WorkerResult::fail(ErrIsDirectory, url);
    return WorkerResult::pass();
}

WorkerResult SmbWorker::readToEnd(SMBCFILE *file, const QUrl &url, qint64 offset, qint64 size,
    const std::function<WorkerResult(QByteArrayView)> &sink)
{
    SMBCCTX *ctx = m_ctx.get();
    const qint64 chunk = readChunk();
    QByteArray buffer(chunk, Qt::Uninitialized);
    // Reads a whole chunk (fewer bytes only at the end) at \a at on the worker's own file.
    const auto readOwn = [&](qint64 at, qint64 *got) {
        *got = 0;
        if (at >= 0 && smbc_getFunctionLseek(ctx)(ctx, file, off_t(at), SEEK_SET) < 0)
            return fail(errno, url, int(Operation::Read));
        while (*got < chunk) {
            const ssize_t n = smbc_getFunctionRead(ctx)(ctx, file, buffer.data() + *got, size_t(chunk - *got));
            if (n < 0)
                return fail(errno, url, int(Operation::Read));
            if (n == 0)
                break;
            *got += n;
        }
        return WorkerResult::pass();
    };

    // Chunk k is at offset + k * chunk. At each of its turns the worker first hands the
    // next chunks to the lanes that have connected, one each, then reads its own; then it
    // takes the lanes' in order. Until a lane has connected the worker reads its chunks.
    // Reading is idempotent: a chunk a lane fails to read, the worker reads (and the lane
    // is dropped).
    Smb::Lane lanes[MaxLanes];
    const int laneTotal = offset >= 0 && size - offset > chunk ? laneCount() : 0;
    for (int i = 0; i < laneTotal; ++i) {
        if (!lanes[i].start(Smb::Lane::Mode::Read, lib(url), m_host.port(0), m_login, chunk, 1)) {
            qCDebug(QVFS_SMB) << "no lane for" << url << std::strerror(errno);
            if (lanesForced())
                return fail(errno, url, int(Operation::Read));
        }
    }
    struct Given
    {
        qint64 index;
        int lane;
    };
    QVarLengthArray<Given, MaxLanes> given; // in the order of the chunks
    const auto finishLanes = [&](const WorkerResult &r) {
        for (int i = 0; i < laneTotal; ++i) {
            int err = 0;
            if (lanes[i].finish(&err) != 0)
                qCDebug(QVFS_SMB) << "a lane ended badly" << url << std::strerror(err);
        }
        return r;
    };
    for (qint64 k = 0;; ++k) {
        qint64 got = -1;
        const char *data = buffer.constData();
        if (given.isEmpty() || given.first().index != k) {
            // The worker's turn: the lanes are all free.
            qint64 next = k + 1;
            for (int i = 0; i < laneTotal && offset + next * chunk < size; ++i) {
                Smb::Lane &lane = lanes[i];
                if (!lane.isRunning() || !lane.ready(lanesForced())) {
                    if (lanesForced())
                        return finishLanes(fail(EIO, url, int(Operation::Read))); // it could not open the file
                    continue;
                }
                if (!lane.send(0, offset + next * chunk, chunk)) {
                    lane.stop();
                    continue;
                }
                given.append({ next++, i });
            }
        } else {
            Smb::Lane &lane = lanes[given.first().lane];
            given.remove(0);
            int err = 0;
            got = lane.wait(&err);
            if (got >= 0) {
                data = lane.slot(0);
            } else if (lanesForced()) {
                return finishLanes(fail(err, url, int(Operation::Read)));
            } else {
                qCDebug(QVFS_SMB) << "a lane failed to read" << url << std::strerror(err);
                lane.stop();
            }
        }
        if (got < 0) {
            const WorkerResult r = readOwn(offset < 0 ? -1 : offset + k * chunk, &got);
            if (!r.ok())
                return finishLanes(r);
        }
        if (got > 0) {
            const WorkerResult r = sink(QByteArrayView(data, got));
            if (!r.ok())
                return finishLanes(r);
        }
        if (got < chunk)
            return finishLanes(WorkerResult::pass()); // the end
        if (wasKilled())
            return finishLanes(WorkerResult::fail(ErrCancelled, url));
    }
}

WorkerResult SmbWorker::get(const GetRequest &request)
{
    const QUrl &url = request.url;
    std::optional<Smb::File> file;
    struct stat st;
    WorkerResult r = openForReading(url, &file, &st);
    if (!r.ok())
        return r;
    const qint64 offset = qMax<qint64>(request.offset, 0);
    if (offset > 0 && smbc_getFunctionLseek(m_ctx.get())(m_ctx.get(), file->handle(), off_t(offset), SEEK_SET) < 0)
        return fail(errno, url, int(Operation::Read));
    setTotals(qMax<qint64>(qint64(st.st_size) - offset, 0), 1, -1);
    qint64 done = 0;
    bool typed = false;
    const auto sendType = [&](QByteArrayView first) {
        typed = true;
        static const QMimeDatabase db;
        mimeType(db.mimeTypeForFileNameAndData(
                       QString::fromUtf8(Url::fileName(url)), QByteArray::fromRawData(first.data(), first.size()))
                     .name());
    };
    r = readToEnd(file->handle(), url, offset, qint64(st.st_size), [&](QByteArrayView piece) {
        if (!typed)
            sendType(piece);
        data(piece);
        done += piece.size();
        setProcessed(done);
        return WorkerResult::pass();
    });
    if (!r.ok())
        return r;
    if (!typed)
        sendType({});
    setProcessed(done, 1);
    return WorkerResult::pass();
}

WorkerResult SmbWorker::writeReplacing(const QUrl &url, bool overwrite, const struct timeval *times, bool *timesKept,
    const std::function<WorkerResult(SMBCFILE *out, const QUrl &temp)> &fill)
{
    const QUrl temp = Url::child(Url::parent(url),
        temporaryNameFor(Url::fileName(url), QByteArray::number(QRandomGenerator::system()->generate64(), 16)));
    SMBCCTX *ctx = m_ctx.get();
    Smb::File file(ctx);
    WorkerResult r = openRemote(url, O_WRONLY | O_CREAT | O_EXCL, &file.handle(), temp);
    if (!r.ok())
        return r;
    r = fill(file.handle(), temp);
    if (r.ok() && file.close() != 0)
        r = fail(errno, url, int(Operation::Write));
    if (r.ok() && times) {
        const bool kept
            = smbc_getFunctionUtimes(ctx)(ctx, lib(temp).constData(), const_cast<struct timeval *>(times)) == 0;
        if (timesKept)
            *timesKept = kept;
    }
    if (r.ok()) {
        r = renameEntry(temp, url, overwrite);
        if (r.code() == ErrAlreadyExists)
            r = WorkerResult::fail(ErrAlreadyExists, url);
    }
    if (!r.ok()) {
        file.close();
        smbc_getFunctionUnlink(ctx)(ctx, lib(temp).constData());
    }
    return r;
}

WorkerResult SmbWorker::upload(
    const QUrl &url, bool overwrite, qint64 mtime, qint64 size, const std::function<qint64(char *, qint64)> &pull)
{
    const QByteArray name = Url::fileName(url);
    if (name.isEmpty() || isHostRoot(Url::parent(url)))
        return WorkerResult::fail(ErrAccessDenied, url); // a file beside the shares
    struct stat st;
    WorkerResult r = statEntry(url, &st);
    if (r.ok() && S_ISDIR(st.st_mode))
        return WorkerResult::fail(ErrIsDirectory, url);
    if (r.ok() && !overwrite)
        return WorkerResult::fail(ErrAlreadyExists, url);
    if (!r.ok() && r.code() != ErrDoesNotExist)
        return r;
    if (size >= 0)
        setTotals(size, 1, -1);

    // Written under a temporary name beside it, then renamed: complete or absent.
    const qint64 chunk = writeChunk();
    qint64 done = 0;
    const struct timeval times[2] = { { time_t(mtime), 0 }, { time_t(mtime), 0 } };
    bool timesKept = false;
    r = writeReplacing(url, overwrite, mtime >= 0 ? times : nullptr, &timesKept, [&](SMBCFILE *out, const QUrl &temp) {
        SMBCCTX *ctx = m_ctx.get();
        QByteArray own(chunk, Qt::Uninitialized);
        bool end = false;
        // Fills \a into with a whole chunk from pull(), fewer bytes only at the end.
        const auto fill = [&](char *into, qint64 *got) {
            *got = 0;
            while (!end && *got < chunk) {
                const qint64 n = pull(into + *got, chunk - *got);
                if (n < 0)
                    return WorkerResult::fail(int(-n), url); // the source's error, or a kill
                if (n == 0)
                    end = true;
                *got += n;
            }
            return WorkerResult::pass();
        };
        const auto writeOwn = [&](qint64 at, const char *data, qint64 length) {
            if (smbc_getFunctionLseek(ctx)(ctx, out, off_t(at), SEEK_SET) < 0 || !m_ctx.writeAll(out, data, length))
                return fail(errno, url, int(Operation::Write));
            done += length;
            setProcessed(done);
            return WorkerResult::pass();
        };
        // Chunk k is at k * chunk. Once there is more than a chunk the lanes start; the
        // worker writes every chunk itself until a lane has connected. From then on, each
        // round the worker fills its own chunk, fills and sends the next one to each lane
        // that has connected (once its previous one is confirmed), and writes its own
        // while they write theirs.
        Smb::Lane lanes[MaxLanes];
        const int laneTotal = laneCount();
        bool lanesTried = false;
        struct Given
        {
            qint64 at = 0;
            qint64 length = 0;
            bool busy = false;
        };
        Given given[MaxLanes];
        const auto waitLane = [&](int i) -> WorkerResult {
            Given &g = given[i];
            if (!g.busy)
                return WorkerResult::pass();
            g.busy = false;
            int err = 0;
            const qint64 n = lanes[i].wait(&err);
            if (n == g.length) {
                done += n;
                setProcessed(done);
                return WorkerResult::pass();
            }
            // Writing is idempotent: what the lane was given and did not confirm, the
            // worker writes itself from its slot, and the lane is dropped. A failure of
            // the server's shows again on the worker's own connection.
            if (lanesForced())
                return fail(n < 0 ? err : EIO, url, int(Operation::Write));
            qCDebug(QVFS_SMB) << "a lane failed to write" << temp << std::strerror(err);
            lanes[i].stop();
            return writeOwn(g.at, lanes[i].slot(0), g.length);
        };
        const auto step = [&]() -> WorkerResult {
            for (qint64 k = 0; !end;) {
                qint64 got = 0;
                WorkerResult w = fill(own.data(), &got);
                if (!w.ok())
                    return w;
                if (!end && !lanesTried) {
                    lanesTried = true; // more than a chunk: worth more connections
                    for (int i = 0; i < laneTotal; ++i) {
                        if (!lanes[i].start(Smb::Lane::Mode::Write, lib(temp), m_host.port(0), m_login, chunk, 1)) {
                            qCDebug(QVFS_SMB) << "no lane for" << url << std::strerror(errno);
                            if (lanesForced())
                                return fail(errno, url, int(Operation::Write));
                        }
                    }
                }
                qint64 next = k + 1;
                for (int i = 0; i < laneTotal && !end; ++i) {
                    Smb::Lane &lane = lanes[i];
                    if (!lane.isRunning() || !lane.ready(lanesForced())) {
                        if (lanesForced())
                            return fail(EIO, url, int(Operation::Write)); // it could not open the file
                        continue;
                    }
                    if (!(w = waitLane(i)).ok())
                        return w;
                    if (!lane.isRunning())
                        continue; // dropped
                    qint64 theirs = 0;
                    if (!(w = fill(lane.slot(0), &theirs)).ok())
                        return w;
                    if (theirs == 0)
                        break;
                    given[i] = { next * chunk, theirs, true };
                    ++next;
                    if (!lane.send(0, given[i].at, theirs) && !(w = waitLane(i)).ok())
                        return w; // gone: its chunk written here
                }
                if (got > 0 && !(w = writeOwn(k * chunk, own.constData(), got)).ok())
                    return w;
                k = next;
                if (wasKilled())
                    return WorkerResult::fail(ErrCancelled, url);
            }
            for (int i = 0; i < laneTotal; ++i) {
                const WorkerResult w = waitLane(i);
                if (!w.ok())
                    return w;
            }
            return wasKilled() ? WorkerResult::fail(ErrCancelled, url) : WorkerResult::pass();
        };
        WorkerResult result = step();
        // Closed on the server before the temporary is closed, stamped or removed. Every
        // chunk they were given is confirmed by now (or written again here).
        for (int i = 0; i < laneTotal; ++i) {
            int err = 0;
            if (lanes[i].finish(&err) != 0 && result.ok())
                result = fail(err, url, int(Operation::Write));
        }
        return result;
    });
    if (!r.ok())
        return r;
    if (mtime >= 0)
        setResult(ResultKey::TimesKept, timesKept ? 1 : 0);
    setProcessed(done, 1);
    return WorkerResult::pass();
}

WorkerResult SmbWorker::put(const PutRequest &request)
{
    QByteArray chunk;
    qsizetype used = 0;
    return upload(request.url, request.overwrite, request.mtime, request.size, [&](char *into, qint64 room) -> qint64 {
        while (used >= chunk.size()) {
            used = 0;
            if (!readData(&chunk))
                return 0; // the end of the data, or a kill (seen after)
        }
        const qint64 n = qMin<qint64>(room, chunk.size() - used);
        std::memcpy(into, chunk.constData() + used, size_t(n));
        used += n;
        return n;
    });
}

WorkerResult SmbWorker::copyFromFile(const FileCopyRequest &request)
{
    const QUrl &source = request.source;
    const QByteArray localPath = Url::localPath(source);
    if (localPath.isEmpty() || !Url::isLocalFile(source))
        return WorkerResult::fail(ErrUnsupportedAction, source);
    // The very file the job listed: never through a symlink, and the same identity.
    WorkerResult opened = WorkerResult::pass();
    const int fd = LocalFileWriter::openSource(localPath, request.expected, &opened);
    if (fd < 0)
        return opened;
    struct stat st;
    const qint64 size = ::fstat(fd, &st) == 0 ? qint64(st.st_size) : -1;
    // Straight into the chunks the connections write from: no copy in between.
    const WorkerResult r
        = upload(request.destination, request.overwrite, request.mtime, size, [&](char *into, qint64 room) -> qint64 {
              if (wasKilled())
                  return -qint64(ErrCancelled);
              for (;;) {
                  const ssize_t n = ::read(fd, into, size_t(room));
                  if (n >= 0)
                      return n;
                  if (errno != EINTR)
                      return -qint64(ErrCannotRead);
              }
          });
    ::close(fd);
    if (r.code() == ErrCannotRead)
        return WorkerResult::fail(ErrCannotRead, source);
    return r;
}

WorkerResult SmbWorker::copyToFile(const FileCopyRequest &request)
{
    const QUrl &source = request.source;
    const QUrl &destination = request.destination;
    const QByteArray localPath = Url::localPath(destination);
    if (localPath.isEmpty() || !Url::isLocalFile(destination))
        return WorkerResult::fail(ErrUnsupportedAction, destination);
    std::optional<Smb::File> file;
    struct stat st;
    WorkerResult r = openForReading(source, &file, &st);
    if (!r.ok())
        return r;
    // Then the local side, before a byte is read.
    LocalFileWriter writer; // its destructor drops the file on any way out but commit()
    r = writer.open(localPath, request.overwrite, request.permissions, request.expectedParent);
    if (!r.ok())
        return r;
    setTotals(qint64(st.st_size), 1, -1);
    qint64 done = 0;
    r = readToEnd(file->handle(), source, 0, qint64(st.st_size), [&](QByteArrayView piece) {
        const WorkerResult written = writer.write(piece); // a full disk ..., naming the destination
        done += piece.size();
        setProcessed(done);
        return written;
    });
    if (!r.ok())
        return r;
    if (request.mtime >= 0)
        writer.setModificationTime(request.mtime, request.mtimeNs);
    r = writer.commit();
    if (!r.ok())
        return r;
    setProcessed(done, 1);
    return WorkerResult::pass();
}

// ---------------------------------------------------------------- trees

WorkerResult SmbWorker::countTree(const QUrl &url, TreeCounts *counts, bool report)
{
    QList<QUrl> todo { url };
    while (!todo.isEmpty()) {
        const QUrl folder = todo.takeLast();
        const WorkerResult r = readFolder(folder, [&](const DirEntry &e) {
            if (e.isFolder) {
                ++counts->folders;
                todo.append(Url::child(folder, e.name));
            } else {
                ++counts->files;
                counts->bytes += e.size;
            }
            return true;
        });
        if (!r.ok())
            return r;
        if (report)
            setProcessed(counts->bytes, counts->files, counts->folders);
    }
    return WorkerResult::pass();
}

WorkerResult SmbWorker::removeTree(const QUrl &url, qint64 *removed)
{
    // Depth first; a folder goes once what it held is gone.
    struct Pending
    {
        QUrl url;
        bool listed;
    };
    QList<Pending> stack { { url, false } };
    SMBCCTX *ctx = m_ctx.get();
    while (!stack.isEmpty()) {
        Pending &top = stack.last();
        if (!top.listed) {
            top.listed = true;
            const QUrl folder = top.url;
            QList<QUrl> subfolders;
            WorkerResult failed = WorkerResult::pass(); // an unlink's, kept apart from the listing's
            WorkerResult r = readFolder(folder, [&](const DirEntry &e) {
                const QUrl child = Url::child(folder, e.name);
                if (e.isFolder) {
                    subfolders.append(child);
                    return true;
                }
                if (smbc_getFunctionUnlink(ctx)(ctx, lib(child).constData()) != 0) {
                    failed = fail(errno, child, int(Operation::Delete));
                    return false;
                }
                ++*removed;
                setProcessed(0, *removed, -1);
                return true;
            });
            if (r.ok())
                r = failed;
            if (!r.ok())
                return r;
            for (const QUrl &s : std::as_const(subfolders))
                stack.append({ s, false });
            continue;
        }
        const QUrl done = top.url;
        stack.removeLast();
        const WorkerResult r
            = run(done, int(Operation::Delete), [&] { return smbc_getFunctionRmdir(ctx)(ctx, lib(done).constData()); });
        if (!r.ok())
            return r;
        ++*removed;
        if (wasKilled())
            return WorkerResult::fail(ErrCancelled, url);
    }
    return WorkerResult::pass();
}

WorkerResult SmbWorker::renameEntry(const QUrl &from, const QUrl &to, bool overwrite)
{
    // libsmbclient replaces whatever is there (it deletes the target and renames again):
    // without overwrite, what is there is looked at first. Best effort: a file made in
    // between would be replaced.
    struct stat st;
    const WorkerResult there = statEntry(to, &st);
    if (there.ok() && !overwrite)
        return WorkerResult::fail(ErrAlreadyExists, to);
    if (!there.ok() && there.code() != ErrDoesNotExist)
        return there;
    SMBCCTX *ctx = m_ctx.get();
    return run(from, int(Operation::Write),
        [&] { return smbc_getFunctionRename(ctx)(ctx, lib(from).constData(), ctx, lib(to).constData()); });
}

// ---------------------------------------------------------------- single operations

WorkerResult SmbWorker::mkdir(const MkdirRequest &request)
{
    const QUrl &url = request.url;
    if (isHostRoot(url) || isHostRoot(Url::parent(url)))
        return WorkerResult::fail(ErrAccessDenied, url); // shares are made on the server
    const auto make = [&](const QUrl &u) {
        return run(u, int(Operation::Write),
            [&] { return smbc_getFunctionMkdir(m_ctx.get())(m_ctx.get(), lib(u).constData(), 0755); });
    };
    WorkerResult r = make(url);
    if (r.ok() || !request.parents)
        return r;
    struct stat st;
    if (r.code() == ErrAlreadyExists) {
        // `mkdir -p`: a folder is fine, anything else is in the way.
        return statEntry(url, &st).ok() && S_ISDIR(st.st_mode) ? WorkerResult::pass()
                                                               : WorkerResult::fail(ErrAlreadyExists, url);
    }
    if (r.code() != ErrDoesNotExist)
        return r;
    QList<QUrl> missing { url };
    for (QUrl p = Url::parent(url); !isHostRoot(Url::parent(p)); p = Url::parent(p)) {
        const WorkerResult s = statEntry(p, &st);
        if (s.ok()) {
            if (!S_ISDIR(st.st_mode))
                return WorkerResult::fail(ErrAlreadyExists, p);
            break;
        }
        if (s.code() != ErrDoesNotExist)
            return s;
        missing.prepend(p);
    }
    for (const QUrl &m : std::as_const(missing)) {
        r = make(m);
        if (!r.ok() && r.code() != ErrAlreadyExists) // made by someone else meanwhile: fine
            return r;
    }
    return WorkerResult::pass();
}

WorkerResult SmbWorker::del(const DeleteRequest &request)
{
    const QUrl &url = request.url;
    if (isHostRoot(url) || isHostRoot(Url::parent(url)))
        return WorkerResult::fail(ErrAccessDenied, url); // a share is deleted on the server
    struct stat st;
    WorkerResult r = statEntry(url, &st);
    if (!r.ok())
        return r;
    SMBCCTX *ctx = m_ctx.get();
    qint64 removed = 0;
    if (!S_ISDIR(st.st_mode)) {
        r = run(url, int(Operation::Delete), [&] { return smbc_getFunctionUnlink(ctx)(ctx, lib(url).constData()); });
        if (r.ok())
            removed = 1;
    } else if (request.scope == DeleteRequest::Scope::NotFolder) {
        return WorkerResult::fail(ErrIsDirectory, url);
    } else if (request.scope == DeleteRequest::Scope::Entry) {
        r = run(url, int(Operation::Delete), [&] { return smbc_getFunctionRmdir(ctx)(ctx, lib(url).constData()); });
        if (r.ok())
            removed = 1;
    } else {
        r = removeTree(url, &removed);
    }
    setResult(ResultKey::Removed, removed);
    return r;
}

WorkerResult SmbWorker::rename(const RenameRequest &request)
{
    const QUrl &from = request.source;
    const QUrl &to = request.destination;
    if (!isSameServer(from, to, 445))
        return WorkerResult::fail(ErrUnsupportedAction, to);
    if (from.adjusted(QUrl::StripTrailingSlash) == to.adjusted(QUrl::StripTrailingSlash))
        return WorkerResult::fail(ErrIdenticalFiles, to);
    struct stat st;
    const WorkerResult r = statEntry(from, &st);
    if (!r.ok())
        return r;
    return renameEntry(from, to, request.overwrite);
}

WorkerResult SmbWorker::setModificationTime(const SetTimeRequest &request)
{
    const QUrl &url = request.url;
    struct stat st;
    WorkerResult r = statEntry(url, &st);
    if (!r.ok())
        return r;
    // Both times at once: the access time stays as it was.
    struct timeval tv[2] = { { st.st_atim.tv_sec, suseconds_t(st.st_atim.tv_nsec / 1000) },
        { time_t(request.seconds), suseconds_t(request.nanoseconds / 1000) } };
    SMBCCTX *ctx = m_ctx.get();
    return run(url, int(Operation::Write), [&] { return smbc_getFunctionUtimes(ctx)(ctx, lib(url).constData(), tv); });
}

WorkerResult SmbWorker::directorySize(const DirectorySizeRequest &request)
{
    struct stat st;
    WorkerResult r = statEntry(request.url, &st);
    if (!r.ok() && !isHostRoot(request.url))
        return r;
    TreeCounts counts;
    if (isHostRoot(request.url) || S_ISDIR(st.st_mode)) {
        r = countTree(request.url, &counts, true);
        if (!r.ok())
            return r;
    } else {
        counts.files = 1;
        counts.bytes = st.st_size;
    }
    setResult(ResultKey::Bytes, counts.bytes);
    setResult(ResultKey::Files, counts.files);
    setResult(ResultKey::Folders, counts.folders);
    return WorkerResult::pass();
}

WorkerResult SmbWorker::freeSpace(const FreeSpaceRequest &request)
{
    const QUrl &url = request.url;
    if (isHostRoot(url))
        return WorkerResult::fail(ErrUnsupportedAction, url); // a host has no one size: its shares do
    struct statvfs st;
    QByteArray target = lib(url);
    const WorkerResult r = run(url, int(Operation::Read),
        [&] { return smbc_getFunctionStatVFS(m_ctx.get())(m_ctx.get(), target.data(), &st); });
    if (!r.ok())
        return r;
    // libsmbclient counts in f_bsize × f_frsize bytes (sectors per unit × bytes per
    // sector); f_frsize 0 (a server with Unix extensions) means f_bsize alone. A total of
    // 0 is a server that does not say (KDE bugs 298801, 431050).
    if (st.f_blocks == 0)
        return WorkerResult::fail(ErrUnsupportedAction, url);
    const quint64 unit = st.f_frsize ? quint64(st.f_bsize) * st.f_frsize : quint64(st.f_bsize);
    setFreeSpace(unit, st.f_blocks, st.f_bfree, st.f_bavail);
    return WorkerResult::pass();
}

} // namespace Qvfs
