// SPDX-License-Identifier: LGPL-2.1-or-later
#include "job.h"
#include "error.h"
#include "job_p.h"
#include "keys_p.h"
#include "qvfs_debug.h"
#include "scheduler_p.h"
#include "urlidentity.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QTimer>

#include <utility>

namespace Qvfs
{

AskDelegate::~AskDelegate() = default;

// ---------------------------------------------------------------- Question

Question::Kind Question::kind() const
{
    return Kind(Internal::questionKind(m_items));
}

ConflictQuestion Question::conflict() const
{
    return Internal::decodeConflictQuestion(m_items);
}

PasswordQuestion Question::password() const
{
    return Internal::decodePasswordQuestion(m_items);
}

TrustQuestion Question::trust() const
{
    return Internal::decodeTrustQuestion(m_items);
}

void Question::answerConflict(ConflictAction action, bool applyToAll)
{
    finish(Internal::encodeAnswer(ConflictAnswer { action, applyToAll, true }));
}

void Question::answerPassword(const QString &user, const QString &password, bool remember)
{
    finish(Internal::encodeAnswer(Credentials { user, password, remember, true }));
}

void Question::answerTrust(Trust trust)
{
    finish(Internal::encodeAnswer(trust));
}

UnreadableQuestion Question::unreadable() const
{
    return Internal::decodeUnreadableQuestion(m_items);
}

void Question::answerUnreadable(UnreadableAction action, bool applyToAll)
{
    finish(Internal::encodeAnswer(UnreadableAnswer { action, applyToAll, true }));
}

void Question::refuse()
{
    finish(MetaData());
}

void Question::finish(const MetaData &answer)
{
    if (m_job)
        m_job->d_func()->answerQuestion(this, answer);
    else
        delete this;
}

// ---------------------------------------------------------------- JobPrivate

JobPrivate::JobPrivate() = default;

JobPrivate::~JobPrivate()
{
    detachQuestions();
}

void JobPrivate::detachQuestions()
{
    // A delegate may still hold them (a dialog left open): they become answerable
    // no-ops that delete themselves, instead of dangling.
    for (Question *q : std::as_const(openQuestions))
        q->m_job = nullptr;
    openQuestions.clear();
}

void JobPrivate::start()
{
    request.start();
}

void JobPrivate::abort()
{
    request.cancel();
}

void JobPrivate::suspendWork(bool suspend)
{
    request.setSuspended(suspend);
}

void JobPrivate::emitResult(int code, const QStringList &args)
{
    Q_Q(Job);
    if (finished)
        return;
    finished = true;
    error = code;
    errorArgs = args;
    if (code == NoError && leftOutCount > 0) {
        error = ErrPartial;
        errorArgs = QStringList { QString::number(leftOutCount), firstLeftOut.toString() };
    }
    detachQuestions();
    if (error == NoError && lastPercent != 100) {
        // Done: also when what was skipped left nothing to count by (percent()).
        lastPercent = 100;
        Q_EMIT q->percentChanged(q, 100);
    }
    Q_EMIT q->result(q);
    if (autoDelete)
        q->deleteLater();
}

void JobPrivate::recordLeftOut(const QUrl &url, int code)
{
    Q_Q(Job);
    if (leftOutCount++ == 0)
        firstLeftOut = url;
    Q_EMIT q->leftOut(q, url, code);
}

void JobPrivate::requestProgress(const Internal::Progress &progress)
{
    applyProgress(progress);
}

void JobPrivate::requestMetaData(const MetaData &m)
{
    meta.merge(m);
}

void JobPrivate::requestRedirection(const QUrl &url)
{
    Q_Q(Job);
    Q_EMIT q->redirection(q, url);
}

void JobPrivate::requestFinished(const MetaData &results)
{
    meta.merge(results);
    onFinished(results);
}

void JobPrivate::requestFailed(int code, const QStringList &args)
{
    onFailed(code, args);
}

void JobPrivate::onFinished(const MetaData &)
{
    emitResult();
}

void JobPrivate::onFailed(int code, const QStringList &args)
{
    emitResult(code, args);
}

void JobPrivate::setTotal(Job::Unit unit, qint64 amount)
{
    Q_Q(Job);
    if (std::exchange(total[unit], amount) != amount)
        Q_EMIT q->totalAmountChanged(q, unit, amount);
}

void JobPrivate::setProcessed(Job::Unit unit, qint64 amount)
{
    Q_Q(Job);
    if (std::exchange(processed[unit], amount) == amount)
        return;
    Q_EMIT q->processedAmountChanged(q, unit, amount);
    if (unit == Job::Bytes) {
        if (!clock.isValid())
            clock.start();
        const qint64 now = clock.elapsed();
        speedSamples.emplace_back(now, amount);
        while (speedSamples.size() > 2 && now - speedSamples.front().first > 3000)
            speedSamples.pop_front();
        const auto &first = speedSamples.front();
        if (now > first.first) {
            currentSpeed = (amount - first.second) * 1000 / (now - first.first);
            Q_EMIT q->speedChanged(q, currentSpeed);
        }
    }
    const unsigned long p = q->percent();
    if (p != lastPercent) {
        lastPercent = p;
        Q_EMIT q->percentChanged(q, p);
    }
}

void JobPrivate::applyProgress(const Internal::Progress &progress)
{
    for (int u = 0; u < 3; ++u) {
        if (progress.total[size_t(u)] >= 0)
            setTotal(Job::Unit(u), progress.total[size_t(u)]);
    }
    for (int u = 0; u < 3; ++u) {
        if (progress.processed[size_t(u)] >= 0)
            setProcessed(Job::Unit(u), progress.processed[size_t(u)]);
    }
}

// Answers kept for the application's lifetime: credentials per (scheme, user, host,
// port, realm), so fifty jobs or a worker that replaced a dead one do not ask fifty
// times; trust answered "always" per (kind, host, fingerprint).
namespace
{
QHash<QString, MetaData> &answerCache()
{
    static QHash<QString, MetaData> cache;
    return cache;
}

QString cacheKey(const MetaData &m)
{
    switch (Question::Kind(Internal::questionKind(m))) {
    case Question::Kind::Password: {
        const PasswordQuestion q = Internal::decodePasswordQuestion(m);
        QUrl url = q.url;
        if (!q.user.isEmpty())
            url.setUserName(q.user);
        return QLatin1String("password|") + Url::schedulerKey(url) + QLatin1Char('|') + q.realm;
    }
    case Question::Kind::HostKey:
    case Question::Kind::Certificate: {
        const TrustQuestion q = Internal::decodeTrustQuestion(m);
        return QStringLiteral("trust|%1|%2|%3").arg(int(q.kind)).arg(q.host, q.fingerprint);
    }
    case Question::Kind::Conflict:
    case Question::Kind::Unreadable:
        break;
    }
    return QString();
}
} // namespace

void JobPrivate::askQuestion(const MetaData &m, std::function<void(const MetaData &)> local)
{
    Q_Q(Job);
    const int kind = Internal::questionKind(m);
    auto *question = new Question;
    question->m_items = m;
    question->m_job = q;
    question->m_serial = ++questionSerial;
    question->m_local = std::move(local);
    const auto forAll = applyToAll.constFind(kind);
    if (forAll != applyToAll.constEnd()) {
        answerQuestion(question, forAll.value());
        return;
    }
    const QString key = cacheKey(m);
    if (!key.isEmpty()) {
        if (kind == int(Question::Kind::Password) && Internal::decodePasswordQuestion(m).retry) {
            answerCache().remove(key); // the cached answer was refused by the server
        } else if (const auto it = answerCache().constFind(key); it != answerCache().constEnd()) {
            answerQuestion(question, it.value());
            return;
        }
    }
    openQuestions.append(question);
    if (!askDelegate || kind == 0) {
        qCDebug(QVFS_CORE) << "no delegate to answer a question of kind" << kind;
        answerQuestion(question, MetaData());
        return;
    }
    const quint64 serial = question->m_serial;
    QTimer::singleShot(askTimeoutMs, q, [this, serial] {
        for (Question *open : std::as_const(openQuestions)) {
            if (open->m_serial == serial) {
                // Refused for the worker; the delegate still holds the question, which
                // from now on answers nobody.
                const qint64 qid = open->m_items.number(Internal::Keys::QuestionId);
                const auto local = std::move(open->m_local);
                open->m_job = nullptr;
                openQuestions.removeOne(open);
                if (local)
                    local(MetaData());
                else
                    request.answer(qid, MetaData());
                return;
            }
        }
    });
    askDelegate->ask(question);
}

void JobPrivate::answerQuestion(Question *question, const MetaData &answer)
{
    openQuestions.removeOne(question);
    const int kind = Internal::questionKind(question->m_items);
    const QString key = cacheKey(question->m_items);
    if (!key.isEmpty()) {
        const bool remember = kind == int(Question::Kind::Password)
            ? Internal::decodeCredentials(answer).answered && Internal::decodeCredentials(answer).remember
            : Internal::decodeTrust(answer) == Trust::Always;
        if (remember)
            answerCache().insert(key, answer);
    }
    if ((kind == int(Question::Kind::Conflict) && Internal::decodeConflictAnswer(answer).applyToAll)
        || (kind == int(Question::Kind::Unreadable) && Internal::decodeUnreadableAnswer(answer).applyToAll))
        applyToAll.insert(kind, answer);
    const std::function<void(const MetaData &)> local = std::move(question->m_local);
    const qint64 qid = question->m_items.number(Internal::Keys::QuestionId);
    delete question;
    if (local)
        local(answer);
    else
        request.answer(qid, answer);
}

// ---------------------------------------------------------------- Job

Job::Job(JobPrivate &dd, QObject *parent)
    : QObject(parent)
    , d_ptr(&dd)
{
    Q_D(Job);
    d->q_ptr = this;
    d->clock.start();
    QMetaObject::invokeMethod(
        this,
        [this] {
            Q_D(Job);
            if (!d->started && !d->finished) {
                d->started = true;
                d->start();
            }
        },
        Qt::QueuedConnection);
}

Job::~Job() = default;

int Job::error() const
{
    return d_func()->error;
}

QString Job::errorString() const
{
    Q_D(const Job);
    return d->error ? errorText(d->error, d->errorArgs) : QString();
}

QStringList Job::errorArgs() const
{
    return d_func()->errorArgs;
}

bool Job::exec()
{
    Q_D(Job);
    if (!d->finished) {
        QEventLoop loop;
        connect(this, &Job::result, &loop, &QEventLoop::quit);
        const bool wasAuto = d->autoDelete;
        d->autoDelete = false;
        if (!d->started) {
            d->started = true;
            d->start();
        }
        if (!d->finished) {
            d->execLoop = &loop;
            loop.exec(QEventLoop::ExcludeUserInputEvents);
            d->execLoop = nullptr;
        }
        d->autoDelete = wasAuto;
    }
    const bool ok = d->error == 0;
    if (d->autoDelete)
        deleteLater();
    return ok;
}

bool Job::kill(KillVerbosity verbosity)
{
    Q_D(Job);
    if (d->finished)
        return false;
    d->abort();
    if (verbosity == EmitResult) {
        d->emitResult(ErrCancelled, {});
    } else {
        d->finished = true;
        d->error = ErrCancelled;
        if (d->execLoop)
            d->execLoop->quit(); // exec() returns false; it deletes an auto-delete job
        else if (d->autoDelete)
            deleteLater();
    }
    return true;
}

bool Job::suspend()
{
    Q_D(Job);
    if (d->finished || d->isSuspended)
        return false;
    d->isSuspended = true;
    d->suspendWork(true);
    Q_EMIT suspended(this);
    return true;
}

bool Job::resume()
{
    Q_D(Job);
    if (d->finished || !d->isSuspended)
        return false;
    d->isSuspended = false;
    d->suspendWork(false);
    Q_EMIT resumed(this);
    return true;
}

bool Job::isSuspended() const
{
    return d_func()->isSuspended;
}

bool Job::isAutoDelete() const
{
    return d_func()->autoDelete;
}

void Job::setAutoDelete(bool autoDelete)
{
    d_func()->autoDelete = autoDelete;
}

void Job::setAskDelegate(AskDelegate *delegate)
{
    d_func()->askDelegate = delegate;
}

AskDelegate *Job::askDelegate() const
{
    return d_func()->askDelegate;
}

void Job::setAskTimeout(int ms)
{
    d_func()->askTimeoutMs = ms;
}

qint64 Job::totalAmount(Unit unit) const
{
    return d_func()->total[unit];
}

qint64 Job::processedAmount(Unit unit) const
{
    return d_func()->processed[unit];
}

unsigned long Job::percent() const
{
    Q_D(const Job);
    if (d->finished && d->error == NoError)
        return 100;
    for (int u : { int(Bytes), int(Files) }) {
        if (d->total[u] > 0)
            return (unsigned long)(qBound(qint64(0), d->processed[u] * 100 / d->total[u], qint64(100)));
    }
    return 0;
}

qint64 Job::speed() const
{
    return d_func()->currentSpeed;
}

qint64 Job::leftOutCount() const
{
    return d_func()->leftOutCount;
}

MetaData Job::metaData() const
{
    return d_func()->meta;
}

void shutdownIdleWorkers()
{
    Internal::Scheduler::instance()->shutdownIdle();
}

void prestartWorker(const QUrl &url)
{
    Internal::Scheduler::instance()->prestart(url);
}

int workerStartCount()
{
    return Internal::Scheduler::instance()->workerStarts();
}

} // namespace Qvfs
