// SPDX-License-Identifier: LGPL-2.1-or-later
#include "loopbackproxy.h"

#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>

namespace
{

// One client connection and its connection to the server.
class Relay : public QObject
{
public:
    Relay(LoopbackProxy *proxy, QTcpSocket *client)
        : m_proxy(proxy)
        , m_client(client)
    {
        m_client->setParent(this);
        m_plan = proxy->takeConnectionPlan();
        connect(m_client, &QTcpSocket::readyRead, this, &Relay::fromClient);
        connect(m_client, &QTcpSocket::disconnected, this, &Relay::finish);
        if (proxy->stalled()) {
            m_stalled = true;
            return;
        }
        m_server = new QTcpSocket(this);
        connect(m_server, &QTcpSocket::readyRead, this, &Relay::fromServer);
        connect(m_server, &QTcpSocket::disconnected, this, &Relay::finish);
        m_server->connectToHost(QHostAddress::LocalHost, proxy->upstreamPort());
    }

    void closeNow()
    {
        m_client->abort();
        if (m_server)
            m_server->abort();
        finish();
    }

private:
    void fromClient()
    {
        const QByteArray data = m_client->readAll();
        if (m_stalled)
            return;
        parseRequests(data);
        m_server->write(data);
    }

    // Finds request boundaries: header block, then Content-Length bytes of body.
    void parseRequests(QByteArrayView data)
    {
        while (!data.isEmpty()) {
            if (m_bodyLeft > 0) {
                const qint64 n = qMin<qint64>(m_bodyLeft, data.size());
                m_bodyLeft -= n;
                data = data.sliced(n);
                continue;
            }
            const qsizetype before = m_head.size();
            m_head += data;
            const qsizetype end = m_head.indexOf("\r\n\r\n");
            if (end < 0) {
                data = {};
                continue;
            }
            const qsizetype consumed = end + 4 - before;
            data = data.sliced(consumed);
            const QByteArray head = m_head.left(end);
            m_head.clear();
            const QByteArray line = head.left(head.indexOf("\r\n"));
            m_proxy->noteRequest(line);
            const QByteArray method = line.left(line.indexOf(' '));
            if (m_proxy->takeSwallow(method))
                m_swallowing = true;
            for (const QByteArray &h : head.split('\n')) {
                const QByteArray t = h.trimmed();
                if (t.toLower().startsWith("content-length:"))
                    m_bodyLeft = t.mid(15).trimmed().toLongLong();
            }
        }
    }

    void fromServer()
    {
        QByteArray data = m_server->readAll();
        if (m_swallowing) {
            // the server has carried the request out; the client never hears of it
            disconnect(m_server, nullptr, this, nullptr);
            m_server->abort();
            m_client->disconnectFromHost();
            return;
        }
        if (m_plan.cutAfter >= 0) {
            const qint64 room = m_plan.cutAfter - m_sent;
            if (data.size() >= room) {
                data.truncate(room);
                m_client->write(data);
                m_client->flush();
                m_sent += data.size();
                if (m_plan.stallInsteadOfClose) {
                    m_stalled = true;
                    disconnect(m_server, nullptr, this, nullptr);
                    m_server->abort();
                } else {
                    m_client->disconnectFromHost();
                    m_server->abort();
                }
                return;
            }
        }
        m_sent += data.size();
        m_client->write(data);
    }

    void finish()
    {
        if (m_done)
            return;
        m_done = true;
        if (m_client->state() != QAbstractSocket::UnconnectedState)
            m_client->disconnectFromHost();
        if (m_server && m_server->state() != QAbstractSocket::UnconnectedState)
            m_server->disconnectFromHost();
        deleteLater();
    }

    LoopbackProxy *m_proxy;
    QTcpSocket *m_client;
    QTcpSocket *m_server = nullptr;
    LoopbackProxy::Plan m_plan;
    QByteArray m_head;
    qint64 m_bodyLeft = 0;
    qint64 m_sent = 0;
    bool m_swallowing = false;
    bool m_stalled = false;
    bool m_done = false;
};

} // namespace

LoopbackProxy::LoopbackProxy(quint16 upstreamPort, QObject *parent)
    : QThread(parent)
    , m_upstream(upstreamPort)
{ }

LoopbackProxy::~LoopbackProxy()
{
    quit();
    wait();
}

bool LoopbackProxy::start()
{
    QThread::start();
    // run() publishes the port once it listens, or ends if it cannot
    for (int i = 0; i < 5000 && m_port == 0 && !isFinished(); ++i)
        QThread::msleep(1);
    return m_port != 0;
}

void LoopbackProxy::run()
{
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, 0))
        return;
    QList<QPointer<QObject>> relays;
    connect(&server, &QTcpServer::newConnection, &server, [&] {
        while (QTcpSocket *s = server.nextPendingConnection()) {
            ++m_connections;
            relays.append(new Relay(this, s));
        }
    });
    connect(this, &LoopbackProxy::closeAllRequested, &server, [&] {
        for (const QPointer<QObject> &r : std::as_const(relays)) {
            if (r)
                static_cast<Relay *>(r.data())->closeNow();
        }
        relays.clear();
    });
    m_port = server.serverPort();
    exec();
    for (const QPointer<QObject> &r : std::as_const(relays))
        delete r.data();
}

QUrl LoopbackProxy::url(const QByteArray &encodedPath) const
{
    return QUrl::fromEncoded("http://127.0.0.1:" + QByteArray::number(m_port) + encodedPath);
}

void LoopbackProxy::swallowResponse(const QByteArray &method, int times)
{
    QMutexLocker lock(&m_mutex);
    m_swallowMethod = method;
    m_swallowTimes = times;
}

void LoopbackProxy::dropAfter(qint64 responseBytes, int times)
{
    QMutexLocker lock(&m_mutex);
    m_cutAfter = responseBytes;
    m_cutStalls = false;
    m_cutTimes = times;
}

void LoopbackProxy::stallAfter(qint64 responseBytes, int times)
{
    QMutexLocker lock(&m_mutex);
    m_cutAfter = responseBytes;
    m_cutStalls = true;
    m_cutTimes = times;
}

void LoopbackProxy::closeAll()
{
    Q_EMIT closeAllRequested();
}

QByteArrayList LoopbackProxy::requests() const
{
    QMutexLocker lock(&m_mutex);
    return m_requests;
}

bool LoopbackProxy::takeSwallow(const QByteArray &method)
{
    QMutexLocker lock(&m_mutex);
    if (m_swallowTimes <= 0 || method != m_swallowMethod)
        return false;
    --m_swallowTimes;
    return true;
}

LoopbackProxy::Plan LoopbackProxy::takeConnectionPlan()
{
    QMutexLocker lock(&m_mutex);
    Plan p;
    if (m_cutTimes > 0) {
        --m_cutTimes;
        p.cutAfter = m_cutAfter;
        p.stallInsteadOfClose = m_cutStalls;
    }
    return p;
}

void LoopbackProxy::noteRequest(const QByteArray &line)
{
    QMutexLocker lock(&m_mutex);
    m_requests.append(line);
}
