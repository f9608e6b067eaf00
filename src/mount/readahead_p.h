// SPDX-License-Identifier: LGPL-2.1-or-later
// Read-ahead for a file read through a qvfs mount: once reads go in order, bigger
// ranged reads are asked for ahead of them, several in flight, and the kernel's
// requests are answered from those.
#ifndef QVFS_READAHEAD_P_H
#define QVFS_READAHEAD_P_H

#include "fuseapi_p.h"

#include <QByteArray>
#include <QList>

namespace Qvfs
{
class FileJob;
}

namespace Mount
{

class ReadAhead
{
public:
    /*! Chunks of \a chunk bytes, up to \a window of them ahead of the reader. */
    explicit ReadAhead(qint64 chunk = 1024 * 1024, int window = 8);
    ~ReadAhead();

    /*! The file's size when known (no chunk is asked for past it). */
    void setSize(qint64 size) { m_size = size; }
    /*!
     * The kernel asks for \a size bytes at \a off. Returns true when this took \a req
     * (answered, or to be answered when its chunk arrives); false: the caller reads it
     * on its own (not in order, or not within one chunk).
     */
    bool read(Qvfs::FileJob *job, fuse_req_t req, qint64 off, size_t size);
    /*! The answer to the FileJob request \a id; false when it was not one of ours. */
    bool arrived(quint32 id, const QByteArray &data);
    /*! Whether a kernel read waits here. */
    bool hasWaiting() const { return !m_waiting.isEmpty(); }
    /*! A kernel read this holds and has not answered. */
    struct Pending
    {
        fuse_req_t req;
        qint64 off;
        size_t size;
    };
    /*! Gives up the reads waiting here (to be asked anew) and forgets every chunk. */
    QList<Pending> takeWaiting();
    /*! The file job failed: every request waiting here gets \a error. */
    void fail(int error);

private:
    struct Chunk
    {
        qint64 off = 0;
        qint64 len = 0;
        quint32 id = 0; //!< the FileJob request
        bool arrived = false; //!< all of it is in (or it ended short: the end of the file)
        QList<QByteArray> pieces; //!< as they came (answers point into them: no copy)
        qint64 have = 0; //!< bytes in pieces
        qint64 end() const { return off + len; }
        bool endsFile() const { return arrived && have < len; }
    };
    /*! Whether the chunks hold [off, off + size) from one on (contiguous from off). */
    bool holds(qint64 off, size_t size) const;
    /*! Whether all of [w.off, w.off + w.size) that the file has is in. */
    bool ready(const Pending &w) const;
    /*! Answers \a w from the chunks' pieces (no copy). */
    void answer(const Pending &w);
    void fillAhead(Qvfs::FileJob *job, qint64 off);
    void dropBehind(qint64 off);

    qint64 m_chunk;
    int m_window;
    qint64 m_size = -1;
    qint64 m_next = 0; //!< where a read in order would start
    int m_streak = 0; //!< reads in order so far
    QList<Chunk> m_chunks; //!< contiguous, by offset
    QList<Pending> m_waiting; //!< kernel reads waiting for their bytes
};

} // namespace Mount

#endif
