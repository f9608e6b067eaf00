// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_TESTUTIL_ANSWERER_H
#define QVFS_TESTUTIL_ANSWERER_H

#include <Qvfs/AskDelegate>
#include <Qvfs/Question>

#include <QList>

namespace QvfsTest
{

/*!
 * An ask delegate that answers every conflict question the same way and records what was
 * asked: \c action ("overwrite", "skip", "rename", "cancel", see conflictActionFromName())
 * with \c applyToAll, or a refusal when \c action is empty. With \c never it holds the
 * questions unanswered, like a dialog nobody closes (the job's ask timeout then refuses
 * them for the worker); they are refused when the delegate is destroyed, which then only
 * deletes them.
 */
class Answerer : public Qvfs::AskDelegate
{
public:
    ~Answerer() override;
    void ask(Qvfs::Question *question) override;

    QByteArray action;
    bool applyToAll = false;
    bool never = false;
    /*! How many questions came (of every kind). */
    int asked = 0;
    /*! The conflict questions. */
    QList<Qvfs::ConflictQuestion> questions;
    /*! The questions held with \c never. */
    QList<Qvfs::Question *> held;
};

/*!
 * An ask delegate for logins: answers password questions from \c answers in turn (with
 * the user asked for, or \c answerUser) and refuses once they run out, answers host keys
 * and certificates with \c trust, refuses anything else, and records every question.
 */
class CredentialsAnswerer : public Qvfs::AskDelegate
{
public:
    void ask(Qvfs::Question *question) override;

    Qvfs::Trust trust = Qvfs::Trust::Once;
    QList<QByteArray> answers;
    QString answerUser; //!< answer passwords with this user name (default: the one asked for)
    QList<Qvfs::Question::Kind> kinds;
    QList<Qvfs::PasswordQuestion> passwords;
    QList<Qvfs::TrustQuestion> trusts;
};

} // namespace QvfsTest

#endif
