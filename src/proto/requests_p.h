// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_REQUESTS_P_H
#define QVFS_REQUESTS_P_H

// The wire form of the typed requests (requests.h), questions (questions.h), progress
// and per-item events: one encoder and one decoder each, keys from keys_p.h. A command
// travels as a command number, its URLs (fully encoded) and an options block; the keyed
// block keeps old and new versions of either side compatible. Internal.

#include "metadata.h"
#include "questions.h"
#include "qvfsproto_export.h"
#include "requests.h"
#include "wire_p.h"

#include <QList>
#include <QUrl>

#include <array>
#include <utility>

namespace Qvfs::Internal
{

/*! A command as it travels: number, URLs and options (protocol extras included). */
struct WireCommand
{
    Wire::Command command = Wire::Command::Stat;
    QList<QUrl> urls;
    MetaData options;
};

/*! The payload of a Command frame. */
QVFSPROTO_EXPORT QByteArray encodeCommand(const WireCommand &command);
/*!
 * Parses a Command payload. URLs are parsed strictly; false on malformed input (an
 * invalid URL is reported by the hook that gets it, as ErrMalformedUrl).
 */
QVFSPROTO_EXPORT bool decodeCommand(QByteArrayView payload, WireCommand *command);
/*!
 * The URL whose entry a command's result entry (the result-entry option) describes: what
 * mkdir, put, symlink, chmod and set-time change, where rename and copyFromFile put it.
 * Invalid for the other commands, which have none.
 */
QVFSPROTO_EXPORT QUrl resultEntryUrl(const WireCommand &command);

QVFSPROTO_EXPORT WireCommand toWire(const ListRequest &r);
QVFSPROTO_EXPORT WireCommand toWire(const StatRequest &r);
QVFSPROTO_EXPORT WireCommand toWire(const MkdirRequest &r);
QVFSPROTO_EXPORT WireCommand toWire(const DeleteRequest &r);
QVFSPROTO_EXPORT WireCommand toWire(const RenameRequest &r);
QVFSPROTO_EXPORT WireCommand toWire(const CopyRequest &r);
QVFSPROTO_EXPORT WireCommand toWire(const GetRequest &r);
QVFSPROTO_EXPORT WireCommand toWire(const PutRequest &r);
QVFSPROTO_EXPORT WireCommand toWire(const SymlinkRequest &r);
QVFSPROTO_EXPORT WireCommand toWire(const ChmodRequest &r);
QVFSPROTO_EXPORT WireCommand toWire(const SetTimeRequest &r);
QVFSPROTO_EXPORT WireCommand toWire(const DirectorySizeRequest &r);
QVFSPROTO_EXPORT WireCommand toWire(const FreeSpaceRequest &r);
QVFSPROTO_EXPORT WireCommand toWire(const WatchRequest &r);
QVFSPROTO_EXPORT WireCommand toWire(const TrashRequest &r);
/*! \a toFile: CopyToFile (the destination is local), else CopyFromFile. */
QVFSPROTO_EXPORT WireCommand toWire(const FileCopyRequest &r, bool toFile);
QVFSPROTO_EXPORT WireCommand toWire(const OpenRequest &r);

/*!
 * The typed request of \a c. False when \a c is another command or lacks a URL the
 * command needs (a protocol error).
 */
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, ListRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, StatRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, MkdirRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, DeleteRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, RenameRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, CopyRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, GetRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, PutRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, SymlinkRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, ChmodRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, SetTimeRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, DirectorySizeRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, FreeSpaceRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, FileCopyRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, WatchRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, TrashRequest *r);
QVFSPROTO_EXPORT bool fromWire(const WireCommand &c, OpenRequest *r);

// ---- an open file (Command::Open): FileOpened, the operations and their answers ----

/*! The FileOpened payload. */
QVFSPROTO_EXPORT QByteArray encodeOpened(const OpenedFile &file);
QVFSPROTO_EXPORT bool decodeOpened(QByteArrayView payload, OpenedFile *file);

/*! One positional operation as it travels (FileRead, FileTruncate, FileSize, FileWrite). */
struct FileOperation
{
    quint32 op = 0; //!< the application's id, echoed in the answer
    qint64 offset = 0; //!< read, write: where (-1: append); truncate: the new length
    qint64 length = 0; //!< read: how many bytes
};
QVFSPROTO_EXPORT QByteArray encodeFileRead(const FileOperation &o);
QVFSPROTO_EXPORT QByteArray encodeFileTruncate(const FileOperation &o);
QVFSPROTO_EXPORT QByteArray encodeFileSize(const FileOperation &o);
/*! Parses the payload of \a type (FileRead, FileTruncate or FileSize); false when malformed. */
QVFSPROTO_EXPORT bool decodeFileOperation(Wire::Msg type, QByteArrayView payload, FileOperation *o);
/*! The trailer that follows a FileWrite's data. */
QVFSPROTO_EXPORT QByteArray fileWriteTrailer(const FileOperation &o);
/*!
 * Takes the trailer off a FileWrite payload in place (the data stays, no copy). False
 * when malformed (too short, too much data, an offset below -1).
 */
QVFSPROTO_EXPORT bool decodeFileWrite(QByteArray *payload, FileOperation *o);

/*! A FileData trailer: the piece's offset, its operation and whether it is the last. */
QVFSPROTO_EXPORT void putFileDataTrailer(char *out, quint32 op, qint64 offset, bool last);
/*! Takes the trailer off a FileData payload in place; false when malformed. */
QVFSPROTO_EXPORT bool decodeFileData(QByteArray *payload, quint32 *op, qint64 *offset, bool *last);

/*! FileDone: the operation, where (a write's offset; an append's actual one), the value. */
struct FileDone
{
    quint32 op = 0;
    qint64 offset = 0;
    qint64 value = 0; //!< bytes written; a truncate's new length; the size
};
QVFSPROTO_EXPORT QByteArray encodeFileDone(const FileDone &d);
QVFSPROTO_EXPORT bool decodeFileDone(QByteArrayView payload, FileDone *d);

// ---- questions: the Question frame's block (kind + items) and the Answer's ----

QVFSPROTO_EXPORT MetaData encodeQuestion(const ConflictQuestion &q);
QVFSPROTO_EXPORT MetaData encodeQuestion(const PasswordQuestion &q);
QVFSPROTO_EXPORT MetaData encodeQuestion(const TrustQuestion &q);
QVFSPROTO_EXPORT MetaData encodeQuestion(const UnreadableQuestion &q);
/*! The kind of a Question block; 0 when unknown. */
QVFSPROTO_EXPORT int questionKind(const MetaData &m);
QVFSPROTO_EXPORT ConflictQuestion decodeConflictQuestion(const MetaData &m);
QVFSPROTO_EXPORT PasswordQuestion decodePasswordQuestion(const MetaData &m);
QVFSPROTO_EXPORT TrustQuestion decodeTrustQuestion(const MetaData &m);
QVFSPROTO_EXPORT UnreadableQuestion decodeUnreadableQuestion(const MetaData &m);

/*! An empty block means "not answered" for every kind. */
QVFSPROTO_EXPORT MetaData encodeAnswer(const ConflictAnswer &a);
QVFSPROTO_EXPORT MetaData encodeAnswer(const Credentials &a);
QVFSPROTO_EXPORT MetaData encodeAnswer(Trust trust);
QVFSPROTO_EXPORT MetaData encodeAnswer(const UnreadableAnswer &a);
QVFSPROTO_EXPORT ConflictAnswer decodeConflictAnswer(const MetaData &m);
QVFSPROTO_EXPORT Credentials decodeCredentials(const MetaData &m);
QVFSPROTO_EXPORT Trust decodeTrust(const MetaData &m);
QVFSPROTO_EXPORT UnreadableAnswer decodeUnreadableAnswer(const MetaData &m);

// ---- progress ----

/*! Amounts in the order of Job::Unit: bytes, files, folders; -1 = not reported. */
struct Progress
{
    std::array<qint64, 3> total { { -1, -1, -1 } };
    std::array<qint64, 3> processed { { -1, -1, -1 } };
    /*! Entries left alone by a conflict policy or answer (-1 = not reported). */
    qint64 skipped = -1;
};
QVFSPROTO_EXPORT MetaData encodeProgress(const Progress &p);
QVFSPROTO_EXPORT Progress decodeProgress(const MetaData &m);

// ---- redirection and per-item events ----

QVFSPROTO_EXPORT QByteArray encodeRedirection(const QUrl &url);
QVFSPROTO_EXPORT bool decodeRedirection(QByteArrayView payload, QUrl *url);
QVFSPROTO_EXPORT QByteArray encodeItem(CopyItemEvent event, const QUrl &source, const QUrl &destination);
QVFSPROTO_EXPORT bool decodeItem(QByteArrayView payload, CopyItemEvent *event, QUrl *source, QUrl *destination);
QVFSPROTO_EXPORT QByteArray encodeLeftOut(const QUrl &url, int error);
QVFSPROTO_EXPORT bool decodeLeftOut(QByteArrayView payload, QUrl *url, int *error);

// ---- watches ----

/*!
 * A watch's report (Msg::Changes). On one watch request the worker sends, in order:
 * the listing (Entries frames) and Listed; then any number of change batches, each its
 * Entries frames (new or changed entries: an upsert by name) followed by one Commit that
 * carries the removed names and the renames and applies the batch as one; a Resync
 * starts a fresh listing (after lost events), ended by Listed again, after which every
 * entry the listing did not name is gone. Gone ends the watch (Finished follows).
 */
struct WatchChanges
{
    enum class Kind : quint8 {
        Listed = 1, //!< the listing is complete; \a mode says how the folder is watched now
        Resync = 2, //!< a fresh listing follows
        Commit = 3, //!< the batch: Entries since the last report, then \a removed, \a renamed
        Gone = 4, //!< the folder was deleted (or its filesystem unmounted)
        Moved = 5, //!< the folder now lives at \a url; the watch continues there
    };
    Kind kind = Kind::Commit;
    WatchMode mode = WatchMode::None;
    QList<QByteArray> removed;
    /*! (old name, new name); applied before \a removed and the batch's entries. */
    QList<std::pair<QByteArray, QByteArray>> renamed;
    QUrl url;
};
QVFSPROTO_EXPORT QByteArray encodeChanges(const WatchChanges &c);
/*! False on malformed input (bounded by the payload; names of at most 64 KiB). */
QVFSPROTO_EXPORT bool decodeChanges(QByteArrayView payload, WatchChanges *c);

} // namespace Qvfs::Internal

#endif
