// SPDX-License-Identifier: LGPL-2.1-or-later
// Formatting for people and for scripts: quoting of names, `ls -l` columns, JSON Lines.
#ifndef QVFS_CLI_FORMAT_H
#define QVFS_CLI_FORMAT_H

#include <Qvfs/Entry>

#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <QUrl>

namespace Cli
{

/*! How shellEscape() quotes. */
enum class QuoteStyle {
    IfNeeded, //!< only names with blanks, shell characters or control characters ("shell-escape")
    Always, //!< every name, in single quotes at least ("shell-escape-always": messages that name a file)
};

/*!
 * \a name as coreutils `ls` shows it on a terminal (quoting style "shell-escape"):
 * unchanged when nothing in it is special; in single quotes when it holds blanks or
 * shell characters; control characters and bytes that are not UTF-8 as $'\n' / $'\377'
 * pieces: 'a'$'\n''b'. The result is valid UTF-8 and holds no control character.
 * With QuoteStyle::Always a plain name is put in single quotes too: 'a'.
 */
QByteArray shellEscape(QByteArrayView name, QuoteStyle style = QuoteStyle::IfNeeded);

/*! Whether shellEscape() changes \a name in QuoteStyle::IfNeeded (no allocation). */
bool needsShellEscape(QByteArrayView name);

/*! Whether \a text holds a control character or bytes that are not UTF-8. */
bool hasControlOrInvalid(QByteArrayView text);

/*! How many terminal columns \a text (UTF-8, as printed) takes. */
int displayWidth(QByteArrayView text);

/*! The `ls -l` type and permission string: "drwxr-xr-x". */
QByteArray modeString(Qvfs::FileType type, qint64 mode);

/*! The `ls -l` date: "Mon dd HH:MM" when within six months before \a now, "Mon dd  YYYY" otherwise. */
QByteArray lsDate(qint64 seconds, qint64 now);

/*! The `stat` date: "YYYY-MM-DD HH:MM:SS.nnnnnnnnn +zzzz" (local time). */
QByteArray statDate(qint64 seconds, qint64 nanoseconds);

/*! The name of \a type in JSON: "file", "dir", "symlink", "chardev", "blockdev", "fifo", "socket", "unknown". */
const char *jsonTypeName(Qvfs::FileType type);

/*! The readable type, as `stat` says it ("regular file", "directory", ...). */
QString typeDescription(Qvfs::FileType type, qint64 size);

/*! Appends \a text (valid UTF-8) to \a out as a JSON string. */
void appendJsonString(QByteArray &out, QByteArrayView text);

/*!
 * Appends `"key":"..."` when \a bytes are valid UTF-8, otherwise `"key":null,"key_bytes":"<base64>"`.
 * (A leading comma is added unless \a out ends with '{'.)
 */
void appendJsonBytes(QByteArray &out, const char *key, QByteArrayView bytes);
/*! Appends `"key":number`. */
void appendJsonNumber(QByteArray &out, const char *key, qint64 value);
/*!
 * Appends `"key":number` for the time \a seconds + \a nanoseconds (0 to 999999999) in
 * nanoseconds, exact for every qint64 \a seconds (beyond the years 1677 to 2262 the
 * number is wider than 64 bits).
 */
void appendJsonNanoseconds(QByteArray &out, const char *key, qint64 seconds, qint64 nanoseconds);

/*!
 * One JSON object (without newline) describing \a entry, named \a name, at \a url (may be
 * empty): name/name_bytes, url, type, size, mode, nlink, uid, gid, user, group, mtime,
 * mtime_ns, atime(_ns), btime(_ns), inode, device, blocks, target/target_bytes, hidden, mimetype.
 */
QByteArray entryJson(const Qvfs::Entry &entry, QByteArrayView name, const QUrl &url);

/*! A byte count for people: "12.3 MiB" (the locale's decimal point). */
QString formatSize(qint64 bytes);
/*! A byte count like `du -h`: "4.0K", "15M", "1.2G". */
QByteArray humanSize(qint64 bytes);
/*! A duration in seconds: "0:42", "1:02:03". */
QString formatDuration(qint64 seconds);

/*! The width of the terminal on \a fd (80 when unknown). */
int terminalWidth(int fd);

} // namespace Cli

#endif
