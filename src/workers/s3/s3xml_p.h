// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_S3XML_P_H
#define QVFS_S3XML_P_H

#include <QByteArray>
#include <QString>
#include <QXmlStreamReader>

#include <functional>
#include <optional>

namespace Qvfs::S3
{

/*!
 * An S3 answer in XML read as it arrives, chunk by chunk (addData()), as a sequence of
 * leaf values and element ends: ListObjectsV2 and ListBuckets pages, errors, the answers
 * of multipart uploads and DeleteObjects. Nothing of the body is kept but the value being
 * read: a page of 1,000 keys is never held whole, and no allocation is made per entry
 * (the value buffer is reused).
 *
 * For each element that holds text only, Leaf gets its name, its depth (the root element
 * is 1) and its text; for each element that ends, End gets its name and depth (after the
 * leaves inside it), so a caller fills a record from the leaves and emits it at its end.
 */
class XmlReader
{
public:
    /*! A leaf element \a name at \a depth with \a text; false stops the reading (a handler's choice). */
    using Leaf = std::function<bool(QStringView name, int depth, QStringView text)>;
    /*! The element \a name at \a depth ended; false stops the reading. */
    using End = std::function<bool(QStringView name, int depth)>;

    XmlReader(Leaf leaf, End end = End());

    /*!
     * Reads \a chunk, the next bytes of the body. False when the XML is not well-formed
     * (errorString()) or a handler stopped; a document cut in the middle is just waiting
     * for more.
     */
    bool addData(const QByteArray &chunk);
    /*! Whether the whole document was read (call after the last chunk). */
    bool atEnd() const;
    QString errorString() const;
    /*! Whether a handler returned false. */
    bool stopped() const { return m_stopped; }

private:
    QXmlStreamReader m_reader;
    Leaf m_leaf;
    End m_end;
    QString m_text;
    int m_depth = 0;
    bool m_leafOpen = false;
    bool m_stopped = false;
    bool m_done = false;
};

/*! \a text (ISO 8601 as S3 sends it, "2026-12-07T19:46:38.123Z") as seconds since the epoch. */
std::optional<qint64> parseIsoTime(QStringView text);

/*!
 * A key or prefix of a listing asked with encoding-type=url, back to its raw bytes: S3 and
 * radosgw percent-encode what XML 1.0 cannot carry.
 */
QByteArray decodeKey(QStringView text);

/*! The first value of the leaf \a name in the small document \a body (an error's Code, an UploadId). */
QByteArray leafValue(const QByteArray &body, QStringView name);

} // namespace Qvfs::S3

#endif
