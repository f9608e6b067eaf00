// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_QUESTION_H
#define QVFS_QUESTION_H

#include "metadata.h"
#include "questions.h"
#include "qvfscore_export.h"

#include <functional>

namespace Qvfs
{

class Job;
class JobPrivate;

/*!
 * One question to the application's AskDelegate, with a typed answer for each kind:
 *
 * | kind()       | what is asked   | answer with                                  |
 * |--------------|-----------------|----------------------------------------------|
 * | Conflict     | conflict()      | answerConflict(action, applyToAll)           |
 * | Password     | password()      | answerPassword(user, password, remember)     |
 * | HostKey      | trust()         | answerTrust(Trust::Once / Always / Refuse)   |
 * | Certificate  | trust()         | answerTrust(Trust::Once / Always / Refuse)   |
 * | Unreadable   | unreadable()    | answerUnreadable(Skip / Retry / Cancel, all) |
 *
 * Answering (or refuse()) deletes the question. A refused or unanswered question fails
 * the job with ErrNotAnswered (a refused trust question with the protocol's own error;
 * an unanswered unreadable-entry question skips the entry).
 * Passwords answered with remember are kept for the application's lifetime per scheme,
 * user, host, port and realm, and trust answered Always per host and fingerprint, so
 * other jobs and replaced workers do not ask again; "apply to all" conflict answers hold
 * for the rest of the job.
 * \since 0.1
 */
class QVFSCORE_EXPORT Question
{
public:
    using Kind = QuestionKind;
    /*! The kind of question. */
    Kind kind() const;
    /*! The job that asks; null once the job ended (the answer then goes nowhere). */
    Job *job() const { return m_job; }

    /*! Kind Conflict: the source and the destination it would replace. */
    ConflictQuestion conflict() const;
    /*! Kind Password: the URL, realm, suggested user and the server's prompt. */
    PasswordQuestion password() const;
    /*! Kinds HostKey and Certificate: the host, fingerprint and details. */
    TrustQuestion trust() const;
    /*! Kind Unreadable: the entry and why it cannot be read. */
    UnreadableQuestion unreadable() const;

    /*! Answers a conflict: \a applyToAll makes it the answer to later conflicts of the job. */
    void answerConflict(ConflictAction action, bool applyToAll = false);
    /*! Answers a password question; \a remember keeps it in the credential cache. */
    void answerPassword(const QString &user, const QString &password, bool remember = true);
    /*! Answers a host key or certificate question. */
    void answerTrust(Trust trust);
    /*! Answers an unreadable-entry question: skip it (\a applyToAll: every later one too), retry, or cancel. */
    void answerUnreadable(UnreadableAction action, bool applyToAll = false);
    /*! Refuses to answer. */
    void refuse();

private:
    friend class JobPrivate;
    Question() = default;
    /*! Delivers the wire form of the answer (empty: refused) and deletes this. */
    void finish(const MetaData &answer);

    MetaData m_items;
    Job *m_job = nullptr;
    quint64 m_serial = 0;
    std::function<void(const MetaData &)> m_local; // asked by the job itself, not a worker
};

} // namespace Qvfs

#endif
