// SPDX-License-Identifier: LGPL-2.1-or-later
#include "job.h"
#include "error.h"
#include "job_p.h"
#include "qvfs_debug.h"
#include "url.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QTimer>

namespace Qvfs
{

using Wire::Msg;

AskDelegate::~AskDelegate() = default;

void Question::answer(const MetaData &answer)
{
    if (m_job)
        m_job->d_func()->answerQuestion(this, answer);
    else
        delete this;
}

JobPrivate::JobPrivate()
{
    request.client = this;
}

JobPrivate::~JobPrivate()
{
    // After the application object is gone there is no pool left to tell.
    if (requestActive && Internal::WorkerPool::exists())
        Internal::WorkerPool::instance()->cancel(&request);
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
    submit(request);
}

void JobPrivate::submit(Internal::Request &r)
{
    r.client = this;
    if (&r == &request)
        requestActive = true;
    Internal::WorkerPool::instance()->submit(&r);
}

void JobPrivate::abort()
{
    if (requestActive) {
        Internal::WorkerPool::instance()->cancel(&request);
        requestActive = false;
    }
}

void JobPrivate::suspendWork(bool suspend)
{
    request.suspended = suspend; // a request still queued starts suspended
    if (requestActive && request.worker) {
        request.worker->sendControl(suspend ? Msg::Suspend : Msg::Resume);
        request.worker->setReading(!suspend);
    }
}

void JobPrivate::emitResult(int code, const QStringList &args)
{
    Q_Q(Job);
    if (finished)
        return;
    finished = true;
    error = code;
    errorArgs = args;
    detachQuestions();
    Q_EMIT q->result(q);
    if (autoDelete)
        q->deleteLater();
}

void JobPrivate::requestEntries(Internal::EntryBatch *batch)
{
    onEntries(batch);
}

void JobPrivate::requestMessage(Wire::Msg type, const QByteArray &payload)
{
    switch (type) {
    case Msg::Data:
        onData(payload);
        break;
    case Msg::DataRequest:
        onDataRequest();
        break;
    case Msg::Progress: {
        MetaData m;
        if (m.decode(payload))
            onProgress(m);
        break;
    }
    case Msg::MetaData: {
        MetaData m;
        if (m.decode(payload))
            meta.merge(m);
        break;
    }
    case Msg::Question: {
        MetaData m;
        if (m.decode(payload))
            onQuestion(m);
        break;
    }
    default:
        break;
    }
}

void JobPrivate::requestFinished(const MetaData &results)
{
    requestActive = false;
    meta.merge(results);
    onFinished(results);
}

void JobPrivate::requestFailed(int code, const QStringList &args)
{
    requestActive = false;
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
    if (total[unit] == amount)
        return;
    total[unit] = amount;
    Q_EMIT q->totalAmountChanged(q, unit, amount);
}

void JobPrivate::setProcessed(Job::Unit unit, qint64 amount)
{
    Q_Q(Job);
    if (processed[unit] == amount)
        return;
    processed[unit] = amount;
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

void JobPrivate::onProgress(const MetaData &m)
{
    static const char *const names[3] = { "bytes", "files", "dirs" };
    for (int u = 0; u < 3; ++u) {
        const QByteArray t = QByteArray("total-") + names[u];
        if (m.isNumber(t))
            setTotal(Job::Unit(u), m.number(t));
    }
    for (int u = 0; u < 3; ++u) {
        if (m.isNumber(names[u]))
            setProcessed(Job::Unit(u), m.number(names[u]));
    }
}

// Credentials answered in this application, keyed by (scheme, user, host, port, realm):
// fifty jobs, or a worker that replaced a dead one, do not ask fifty times.
static QHash<QString, MetaData> &credentialCache()
{
    static QHash<QString, MetaData> cache;
    return cache;
}

static QString credentialKey(const MetaData &question)
{
    QUrl url = QUrl::fromEncoded(question.bytes("url"));
    if (question.contains("user"))
        url.setUserName(question.string("user"));
    return Url::schedulerKey(url) + QLatin1Char('|') + question.string("realm");
}

void JobPrivate::askQuestion(const MetaData &m, std::function<void(const MetaData &)> local)
{
    Q_Q(Job);
    const QByteArray kind = m.bytes("kind");
    const auto cached = applyToAll.constFind(kind);
    auto *question = new Question;
    question->m_items = m;
    question->m_job = q;
    question->m_serial = ++questionSerial;
    question->m_local = std::move(local);
    if (cached != applyToAll.constEnd()) {
        answerQuestion(question, cached.value());
        return;
    }
    if (kind == "password") {
        // A worker asks again ("retry") when cached credentials were refused.
        const QString key = credentialKey(m);
        if (m.number("retry") != 0) {
            credentialCache().remove(key);
        } else if (const auto it = credentialCache().constFind(key); it != credentialCache().constEnd()) {
            answerQuestion(question, it.value());
            return;
        }
    }
    openQuestions.append(question);
    if (!askDelegate) {
        qCDebug(QVFS_CORE) << "no delegate to answer a" << kind << "question";
        answerQuestion(question, MetaData());
        return;
    }
    const quint64 serial = question->m_serial;
    QTimer::singleShot(askTimeoutMs, q, [this, serial] {
        for (Question *open : std::as_const(openQuestions)) {
            if (open->m_serial == serial) {
                // Refused for the worker; the delegate still holds the question, which
                // from now on answers nobody.
                const qint64 qid = open->m_items.number("qid");
                auto local = std::move(open->m_local);
                open->m_job = nullptr;
                openQuestions.removeOne(open);
                deliverAnswer(qid, MetaData(), local);
                return;
            }
        }
    });
    askDelegate->ask(question);
}

void JobPrivate::answerQuestion(Question *question, const MetaData &answer)
{
    openQuestions.removeOne(question);
    if (question->kind() == "password" && answer.contains("password") && answer.number("remember", 1) != 0)
        credentialCache().insert(credentialKey(question->m_items), answer);
    if (answer.number("apply-to-all") != 0)
        applyToAll.insert(question->kind(), answer);
    const std::function<void(const MetaData &)> local = std::move(question->m_local);
    const qint64 qid = question->m_items.number("qid");
    delete question;
    deliverAnswer(qid, answer, local);
}

void JobPrivate::deliverAnswer(qint64 qid, const MetaData &answer, const std::function<void(const MetaData &)> &local)
{
    if (local) {
        local(answer);
        return;
    }
    if (requestActive && request.worker) {
        MetaData a = answer;
        a.setNumber("qid", qid);
        QByteArray payload;
        a.encode(payload);
        request.worker->sendControl(Msg::Answer, payload);
    }
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
    for (int u : { int(Bytes), int(Files) }) {
        if (d->total[u] > 0)
            return (unsigned long)(qBound(qint64(0), d->processed[u] * 100 / d->total[u], qint64(100)));
    }
    return d->finished ? 100 : 0;
}

qint64 Job::speed() const
{
    return d_func()->currentSpeed;
}

MetaData Job::metaData() const
{
    return d_func()->meta;
}

void shutdownIdleWorkers()
{
    Internal::WorkerPool::instance()->shutdownIdle();
}

void prestartWorker(const QUrl &url)
{
    Internal::WorkerPool::instance()->prestart(url);
}

int workerStartCount()
{
    return Internal::WorkerPool::instance()->workerStarts();
}

} // namespace Qvfs
