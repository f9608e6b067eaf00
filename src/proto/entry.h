// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_ENTRY_H
#define QVFS_ENTRY_H

#include "field.h"
#include "qvfsproto_export.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QExplicitlySharedDataPointer>
#include <QList>
#include <QMetaType>
#include <QString>

namespace Qvfs
{

namespace Internal
{
class EntryBatch;
}

/*!
 * One directory entry or stat result: a set of typed fields (see Qvfs::Field).
 *
 * An Entry is a small handle (batch, index) into the block of values a worker sent:
 * the values of a whole batch live together in one buffer, the field ids of every entry
 * of the same shape are one shared key set, and repeated strings (user, group, MIME
 * type) are interned per listing. Copying an Entry is cheap.
 *
 * \note A kept Entry keeps its whole batch alive (typically a few hundred to a few
 * thousand entries of one listing). Writing to an Entry (setNumber(), setString(),
 * remove()) detaches that one entry into a private batch of its own (copy-on-write).
 *
 * Views returned by bytes() and name() stay valid as long as this Entry (or any other
 * handle into the same batch) is alive and not written to.
 * \since 0.1
 */
class QVFSPROTO_EXPORT Entry
{
public:
    /*! An empty entry without fields. */
    Entry() noexcept;
    Entry(const Entry &other) noexcept;
    Entry(Entry &&other) noexcept;
    Entry &operator=(const Entry &other) noexcept;
    Entry &operator=(Entry &&other) noexcept;
    ~Entry();

    /*! Whether the entry has no fields. */
    bool isEmpty() const noexcept;
    /*! The number of fields. */
    int count() const noexcept;
    /*! Whether the entry has field \a field. */
    bool contains(Field field) const noexcept;
    /*! The field ids in the order they are stored. */
    QList<Field> fields() const;

    /*! The value of number field \a field, or \a defaultValue when absent. */
    qint64 number(Field field, qint64 defaultValue = -1) const noexcept;
    /*!
     * The raw bytes of string or atom field \a field; a null view when absent. The view
     * points into the batch (see the class note on lifetime).
     */
    QByteArrayView bytes(Field field) const noexcept;
    /*! The value of string or atom field \a field decoded from UTF-8 (lossy for names). */
    QString string(Field field) const;

    /*! Shortcut for bytes(Qvfs::Name): the name as raw bytes (not always UTF-8). */
    QByteArrayView name() const noexcept { return bytes(Name); }
    /*! The Type field; FileType::Unknown when absent. */
    FileType type() const noexcept { return FileType(number(Type, 0)); }
    /*! Whether Type is Directory. */
    bool isDir() const noexcept { return type() == FileType::Directory; }
    /*! Whether Type is Symlink. */
    bool isLink() const noexcept { return type() == FileType::Symlink; }
    /*! The Size field, -1 when unknown. */
    qint64 size() const noexcept { return number(Size, -1); }

    /*! Sets number field \a field (detaches). Asserts that \a field is a number field. */
    void setNumber(Field field, qint64 value);
    /*!
     * Sets string or atom field \a field to \a value (detaches). An entry must fit one
     * frame: a value that would make it larger than MaxEntryBytes is refused loudly (an
     * assertion in debug builds, a warning on the "qvfs.proto" category otherwise) and the
     * entry stays as it was.
     */
    void setString(Field field, QByteArrayView value);
    /*! The largest an entry may grow by setString() (its encoded size). */
    static constexpr qsizetype MaxEntryBytes = 1000 * 1000;
    /*! Removes \a field if present (detaches). */
    void remove(Field field);
    /*! Removes every field. */
    void clear() noexcept;

    /*! Field-by-field equality (same fields, same values, in any order). */
    bool operator==(const Entry &other) const;
    bool operator!=(const Entry &other) const { return !(*this == other); }

    /*! Used by the library: the handle for entry \a index of \a batch. */
    Entry(const Internal::EntryBatch *batch, quint32 index) noexcept;
    /*! Used by the library: the batch this entry lives in (may be null). */
    const Internal::EntryBatch *batch() const noexcept { return m_batch.data(); }
    /*! Used by the library: the index within batch(). */
    quint32 index() const noexcept { return m_index; }

private:
    void detachWith(quint16 field, bool removeIt, bool isNumber, qint64 number, QByteArrayView str);

    QExplicitlySharedDataPointer<const Internal::EntryBatch> m_batch;
    quint32 m_index = 0;
};

/*!
 * A list of entries, as a ListJob delivers them. It refers to whole batches
 * (appending another list or an entry of the same batch costs no per-entry memory),
 * so keeping every entry of a large listing costs about the bytes the worker sent.
 * Indexing is O(log segments); iteration is linear.
 * \since 0.1
 */
class QVFSPROTO_EXPORT EntryList
{
public:
    EntryList() noexcept;
    EntryList(const EntryList &other);
    EntryList(EntryList &&other) noexcept;
    EntryList &operator=(const EntryList &other);
    EntryList &operator=(EntryList &&other) noexcept;
    ~EntryList();

    /*! The number of entries. */
    qsizetype size() const noexcept { return m_size; }
    qsizetype count() const noexcept { return m_size; }
    bool isEmpty() const noexcept { return m_size == 0; }
    /*! The entry at \a i (0 <= i < size()). */
    Entry at(qsizetype i) const;
    Entry operator[](qsizetype i) const { return at(i); }
    Entry first() const { return at(0); }
    Entry last() const { return at(m_size - 1); }

    /*! Appends \a entry (a handle: no copy of its values). */
    void append(const Entry &entry);
    /*! Appends every entry of \a other. */
    void append(const EntryList &other);
    EntryList &operator+=(const EntryList &other)
    {
        append(other);
        return *this;
    }
    EntryList &operator<<(const Entry &entry)
    {
        append(entry);
        return *this;
    }
    /*! Reserves room for \a segments batches (not entries). */
    void reserveSegments(qsizetype segments);
    void clear();

    /*! Used by the library: a list of every entry of \a batch. */
    static EntryList fromBatch(const Internal::EntryBatch *batch);

    class const_iterator
    {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = Entry;
        using difference_type = qptrdiff;
        using pointer = void;
        using reference = Entry;
        Entry operator*() const;
        const_iterator &operator++();
        const_iterator operator++(int)
        {
            const_iterator r = *this;
            ++*this;
            return r;
        }
        bool operator==(const const_iterator &o) const { return m_seg == o.m_seg && m_off == o.m_off; }
        bool operator!=(const const_iterator &o) const { return !(*this == o); }

    private:
        friend class EntryList;
        const EntryList *m_list = nullptr;
        qsizetype m_seg = 0;
        quint32 m_off = 0;
    };
    const_iterator begin() const;
    const_iterator end() const;
    const_iterator cbegin() const { return begin(); }
    const_iterator cend() const { return end(); }

private:
    struct Segment
    {
        QExplicitlySharedDataPointer<const Internal::EntryBatch> batch;
        quint32 first;
        quint32 count;
        qsizetype start; // index of the first entry of this segment in the list
    };
    QList<Segment> m_segments;
    qsizetype m_size = 0;
};

} // namespace Qvfs

Q_DECLARE_METATYPE(Qvfs::Entry)
Q_DECLARE_METATYPE(Qvfs::EntryList)

#endif
