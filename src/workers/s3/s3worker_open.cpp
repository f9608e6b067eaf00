// SPDX-License-Identifier: LGPL-2.1-or-later
// Random access for the s3 worker (OpenRequest), read-only: a HEAD when the object is
// opened (size, ETag), then one ranged GET per piece the base class asks for (256 KiB at
// most), with If-Match on the ETag so that an object replaced meanwhile is noticed. S3 has
// no write at an offset: writes are refused.
#include "s3worker.h"

#include "davclient_p.h"
#include "s3_debug.h"
#include "url.h"

#include <cstring>

namespace Qvfs
{

using namespace S3;

WorkerResult S3Worker::openFile(const OpenRequest &request, OpenedFile *file)
{
    Location at;
    WorkerResult w = begin(request.url, &at);
    if (!w.ok())
        return w;
    if (request.write || request.append || request.truncate || request.create || request.exclusive)
        return WorkerResult::fail(ErrUnsupportedAction, at.url);
    Found found;
    w = find(at, &found);
    if (!w.ok())
        return w;
    if (found.kind != Found::File)
        return WorkerResult::fail(ErrIsDirectory, at.url);
    m_open = at;
    m_openSize = found.info.size;
    m_openEtag = found.info.etag;
    file->size = m_openSize;
    file->canSeek = true;
    file->mimeType = QString::fromLatin1(Http::DavClient::guessMimeType(at.key));
    qCDebug(QVFS_S3) << "opened" << at.url.toDisplayString() << "size" << m_openSize;
    return WorkerResult::pass();
}

WorkerResult S3Worker::readAt(qint64 offset, char *buffer, qint64 length, qint64 *bytesRead)
{
    *bytesRead = 0;
    if (offset >= m_openSize || length <= 0)
        return WorkerResult::pass(); // the end
    const qint64 want = qMin(length, m_openSize - offset);
    const S3::Result r = m_s3->get(
        m_open, offset, want, nullptr,
        [&](QByteArrayView chunk) {
            const qint64 n = qMin<qint64>(chunk.size(), want - *bytesRead);
            std::memcpy(buffer + *bytesRead, chunk.data(), size_t(n));
            *bytesRead += n;
            return !wasKilled();
        },
        m_openEtag);
    if (r.error == ErrSourceChanged)
        return WorkerResult::fail(ErrSourceChanged, m_open.url);
    return result(r);
}

WorkerResult S3Worker::fileSize(qint64 *size)
{
    *size = m_openSize;
    return WorkerResult::pass();
}

WorkerResult S3Worker::closeFile()
{
    m_open = Location();
    m_openSize = 0;
    m_openEtag.clear();
    return WorkerResult::pass();
}

} // namespace Qvfs
