// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_QUESTIONS_H
#define QVFS_QUESTIONS_H

// What a worker may ask the application while a request runs, and the typed answers.
// Workers ask through WorkerBase::askConflict() / askPassword() / askTrust(); the
// application answers through Qvfs::Question (question.h) and its AskDelegate.

#include "conflict.h"

#include <QString>
#include <QUrl>

namespace Qvfs
{

/*! The kinds of questions. \since 0.1 */
enum class QuestionKind : quint8 {
    Conflict = 1, //!< a destination exists: ConflictQuestion → ConflictAnswer
    Password = 2, //!< credentials are needed: PasswordQuestion → Credentials
    HostKey = 3, //!< an unknown server host key: TrustQuestion → Trust
    Certificate = 4, //!< an untrusted TLS certificate: TrustQuestion → Trust
    Unreadable = 5, //!< an entry inside a tree cannot be read: UnreadableQuestion → UnreadableAnswer
};

/*! A copy would replace \a destination with \a source. \since 0.1 */
struct ConflictQuestion
{
    QUrl source;
    QUrl destination;
};

/*! The answer to a ConflictQuestion. \since 0.1 */
struct ConflictAnswer
{
    ConflictAction action = ConflictAction::Cancel;
    /*! Use this answer for every later conflict of the job. */
    bool applyToAll = false;
    /*! False when nobody answered (refused, timed out, killed): the job fails with ErrNotAnswered. */
    bool answered = false;
};

/*!
 * Credentials for \a url. Answers are remembered for the application's lifetime per
 * scheme, user, host, port and realm (unless the answer says otherwise), so many jobs
 * or a replaced worker ask once.
 * \since 0.1
 */
struct PasswordQuestion
{
    QUrl url;
    /*! The server's realm or what it protects (HTTP realm, "ssh"), part of the cache key. */
    QString realm;
    /*! A suggested user name (from the URL or configuration). */
    QString user;
    /*! What the server asks, when it is more than a password (a key passphrase, a one-time code), untranslated. */
    QString prompt;
    /*! The previous answer was refused by the server: ask again, do not use the cache. */
    bool retry = false;
    /*! The user name is fixed (a key passphrase): only the secret is asked. */
    bool secretOnly = false;
};

/*! The answer to a PasswordQuestion. \since 0.1 */
struct Credentials
{
    QString user;
    QString password;
    /*! Keep it in the application's credential cache. */
    bool remember = true;
    /*! False when nobody answered. */
    bool answered = false;
};

/*! A server's identity (an SSH host key, a TLS certificate) is not trusted yet. \since 0.1 */
struct TrustQuestion
{
    QuestionKind kind = QuestionKind::HostKey;
    /*! The host as the URL names it (with ":port" when not the default). */
    QString host;
    /*! The key's or certificate's fingerprint, as the protocol shows it (e.g. "SHA256:..."). */
    QString fingerprint;
    /*! More, untranslated: the key type, the certificate's subject and the TLS errors. */
    QString detail;
};

/*!
 * An entry inside a tree (a copy's, a delete's, a size's or a recursive listing's) cannot
 * be read or entered. The job goes on without it unless told otherwise; either way it
 * ends with ErrPartial listing what was left out, like `cp -r` exits 1 after copying the
 * rest.
 * \since 0.1
 */
struct UnreadableQuestion
{
    QUrl url;
    /*! Why: a Qvfs::Error (ErrAccessDenied, ErrCannotRead, ...). */
    int error = 0;
};

/*! What to do about an UnreadableQuestion. \since 0.1 */
enum class UnreadableAction : quint8 {
    Skip, //!< leave it out and go on (also what happens when nobody answers)
    Retry, //!< try it once more
    Cancel, //!< stop the job (ErrCancelled)
};

/*! The answer to an UnreadableQuestion. \since 0.1 */
struct UnreadableAnswer
{
    UnreadableAction action = UnreadableAction::Skip;
    /*! Skip every later unreadable entry of the job without asking. */
    bool applyToAll = false;
    /*! False when nobody answered: the entry is skipped. */
    bool answered = false;
};

/*! The answer to a TrustQuestion. \since 0.1 */
enum class Trust : quint8 {
    Refuse, //!< do not connect (also the answer when nobody answers)
    Once, //!< trust it for this connection only
    Always, //!< trust it from now on, pinned to this key or certificate
};

} // namespace Qvfs

#endif
