// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_METADATA_H
#define QVFS_METADATA_H

#include "qvfsproto_export.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QStringList>

namespace Qvfs
{

/*!
 * A small typed key/value block: the options of a request ("details", "offset",
 * "overwrite", headers...) and the metadata of a result ("mimetype", "final-url",
 * TLS information...). One mechanism for every protocol, bounded on the wire
 * (MaxItems items, keys up to MaxKeyLength bytes).
 *
 * Keys are ASCII names; values are 64-bit numbers or byte strings (UTF-8 for text).
 * Lookups are linear: blocks hold a handful of items.
 * \since 0.1
 */
class QVFSPROTO_EXPORT MetaData
{
public:
    static constexpr int MaxItems = 256;
    static constexpr int MaxKeyLength = 64;

    /*! Whether there are no items. */
    bool isEmpty() const noexcept { return m_items.isEmpty(); }
    /*! The number of items. */
    qsizetype size() const noexcept { return m_items.size(); }
    /*! Whether \a key is present. */
    bool contains(QByteArrayView key) const noexcept;
    /*! Whether \a key holds a number. */
    bool isNumber(QByteArrayView key) const noexcept;
    /*! The number under \a key, or \a defaultValue when absent or not a number. */
    qint64 number(QByteArrayView key, qint64 defaultValue = 0) const noexcept;
    /*! The bytes under \a key (empty when absent or a number). */
    QByteArray bytes(QByteArrayView key) const;
    /*! The bytes under \a key decoded as UTF-8. */
    QString string(QByteArrayView key) const;
    /*! Sets a number (replacing any value under \a key). */
    void setNumber(QByteArrayView key, qint64 value);
    /*! Sets bytes (replacing any value under \a key). */
    void setBytes(QByteArrayView key, QByteArrayView value);
    /*! Sets UTF-8 text. */
    void setString(QByteArrayView key, const QString &value) { setBytes(key, value.toUtf8()); }
    /*! Removes \a key. */
    void remove(QByteArrayView key);
    /*! The keys in insertion order. */
    QList<QByteArray> keys() const;
    /*! Copies every item of \a other over this block. */
    void merge(const MetaData &other);

    /*! Used by the library: appends the wire form to \a out. */
    void encode(QByteArray &out) const;
    /*! Used by the library: parses the wire form from \a data; false on malformed input. */
    bool decode(QByteArrayView data, qsizetype *consumed = nullptr);

    bool operator==(const MetaData &o) const;
    bool operator!=(const MetaData &o) const { return !(*this == o); }

private:
    struct Item
    {
        QByteArray key;
        QByteArray bytes;
        qint64 number = 0;
        bool isNumber = false;
        bool operator==(const Item &o) const
        {
            return key == o.key && isNumber == o.isNumber && number == o.number && bytes == o.bytes;
        }
    };
    const Item *find(QByteArrayView key) const noexcept;
    Item &slot(QByteArrayView key);
    QList<Item> m_items;
};

} // namespace Qvfs

#endif
