// SPDX-License-Identifier: LGPL-2.1-or-later
// What MountFs keeps per open file and folder, and the job helpers its parts share.
// Internal to the mount.
#ifndef QVFS_MOUNTFS_P_H
#define QVFS_MOUNTFS_P_H

#include "fuseapi_p.h"
#include "mountfs.h"
#include "mountnodes_p.h"
#include "readahead_p.h"

#include <Qvfs/Entry>
#include <Qvfs/FileJob>
#include <Qvfs/Job>
#include <Qvfs/ListJob>
#include <Qvfs/TransferJob>

#include <QHash>
#include <QList>
#include <QPointer>

#include <functional>

namespace Mount
{

/*! The most a read or write request carries (and what the kernel is told). */
constexpr size_t MaxIo = 1024 * 1024;
/*!
 * Files from this size on are opened for direct I/O: reads bypass the kernel's page
 * cache (a private mapping still works; a shared one fails with ENODEV).
 */
constexpr qint64 StreamSize = 64 * 1024 * 1024;

/*!
 * The private local copy of a file opened for writing, shared by every handle that
 * writes it: an unnamed O_TMPFILE file, gone when closed (or when the mount dies).
 */
struct FileHandle;

struct Spool
{
    ~Spool();
    int fd = -1;
    bool ready = false; //!< the old content is in (or none was needed)
    int error = 0; //!< downloading the old content failed (errno)
    bool dirty = false; //!< changed since the last upload
    quint64 generation = 0; //!< bumped by every change
    int writers = 0; //!< handles open for writing
    int mode = -1; //!< permissions for the upload (-1: the worker's default)
    qint64 mtime = -1; //!< a modification time set while writing, for the upload
    QPointer<Qvfs::TransferJob> uploading;
    QList<FileHandle *> waitingOpens; //!< opens waiting for the old content
    QList<std::function<void(int)>> afterUpload; //!< flushes (and renames) waiting for the upload
};

/*! One open file (fuse_file_info::fh). */
struct FileHandle
{
    fuse_ino_t ino = 0;
    bool writing = false; //!< reads and writes go to the node's spool
    QPointer<Qvfs::FileJob> job; //!< reads from the server
    int error = 0; //!< the file job failed: every later read fails so
    bool opened = false;
    fuse_req_t openReq = nullptr; //!< the open() (or create()) not answered yet
    fuse_file_info info = {}; //!< what its answer says (fh, keep_cache, direct_io)
    bool created = false; //!< a create(): answered with fuse_reply_create
    bool truncate = false; //!< opened with O_TRUNC: empties the spool once it is ready
    struct Read
    {
        fuse_req_t req;
        qint64 off;
        size_t size;
        QByteArray data; //!< the pieces so far
    };
    QHash<quint32, Read> reads; //!< read requests by FileJob request id
    ReadAhead ahead; //!< reads in order
    int reopens = 0; //!< times the file was opened again after it changed on the server
    // A protocol without random access ("open"): one get streams from an offset
    // (mountfs_stream.cpp).
    bool streaming = false;
    QPointer<Qvfs::TransferJob> stream;
    qint64 streamPos = 0; //!< the offset of streamBuf's first byte
    QByteArray streamBuf;
    bool streamEnded = false;
    bool streamSuspended = false;
    QList<Read> streamWaiting;
    // The file job holds a worker: within the host's limit (mountfs_slots.cpp).
    QUrl url;
    QString host; //!< the scheduler's key of url
    bool holdsSlot = false; //!< job counts against the host's budget
    bool waitingSlot = false; //!< in MountFs::m_waitingSlots
    QList<Read> queued; //!< kernel reads waiting for a job
    quint64 lastUse = 0; //!< for choosing the least recently used to close
};

/*! One open folder (fuse_file_info::fh): its listing as it streams in. */
struct DirHandle
{
    struct Waiting
    {
        fuse_req_t req;
        size_t size;
        qint64 off;
        bool plus;
    };
    fuse_ino_t ino = 0;
    QPointer<Qvfs::ListJob> job;
    Qvfs::EntryList entries;
    bool isVirtual = false; //!< a folder of the URL space: its names are virtualNames
    QList<QByteArray> virtualNames;
    bool done = false;
    int error = 0;
    QList<Waiting> waiting; //!< reads past what has arrived, answered as more does
};

/*! What the mount asks of stats and listings. */
constexpr Qvfs::Details MountDetails = Qvfs::DetailBasic | Qvfs::DetailTime;

template<typename Fn>
void onResult(MountFs *fs, Qvfs::Job *job, Qvfs::AskDelegate *ask, Fn fn)
{
    job->setAskDelegate(ask);
    QObject::connect(job, &Qvfs::Job::result, fs, fn);
}

template<typename Then>
void MountFs::whenDone(fuse_req *req, Qvfs::Job *job, Then then)
{
    onResult(this, job, m_options.askDelegate, [req, then](Qvfs::Job *j) {
        if (j->error()) {
            fuse_reply_err(req, errnoFor(j->error()));
            return;
        }
        then(j);
    });
}

} // namespace Mount

#endif
