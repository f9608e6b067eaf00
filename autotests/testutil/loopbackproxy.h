// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_LOOPBACKPROXY_H
#define QVFS_LOOPBACKPROXY_H

#include <QByteArray>
#include <QByteArrayList>
#include <QMutex>
#include <QThread>
#include <QUrl>

#include <atomic>

/*!
 * A TCP relay on 127.0.0.1 in front of a test server (plain HTTP/1.1), in its own thread
 * so it keeps relaying while the test's thread blocks. It reads the requests going
 * through (request line and Content-Length, to tell one from the next) and misbehaves on
 * demand, the way real networks and servers do:
 *
 *  - swallowResponse(method): the next request with that method goes to the server
 *    (which carries it out), then the connection is closed before any byte of the answer
 *    reaches the client: "the server dropped a kept-alive connection", the case where
 *    Qt 6.4 sends the request again;
 *  - dropAfter(bytes): the next connection's answer is cut after that many bytes;
 *  - stallAfter(bytes): the next connection's answer stops after that many bytes and
 *    the connection stays open, silent;
 *  - setStalled(true): new connections are accepted and read, and never answered.
 */
class LoopbackProxy : public QThread
{
    Q_OBJECT
public:
    explicit LoopbackProxy(quint16 upstreamPort, QObject *parent = nullptr);
    ~LoopbackProxy() override;

    /*! Starts listening; false if no port could be had. */
    bool start();
    quint16 port() const { return m_port; }
    /*! http://127.0.0.1:port() + \a encodedPath. */
    QUrl url(const QByteArray &encodedPath = "/") const;

    void swallowResponse(const QByteArray &method, int times = 1);
    void dropAfter(qint64 responseBytes, int times = 1);
    void stallAfter(qint64 responseBytes, int times = 1);
    void setStalled(bool stalled) { m_stalled = stalled; }
    /*! Closes every connection at once (the server "restarts"). */
    void closeAll();

    /*! The request lines seen so far (method, target, version). */
    QByteArrayList requests() const;
    /*! Connections accepted so far. */
    int connectionCount() const { return m_connections; }

    // for the relay
    struct Plan
    {
        QByteArray swallowMethod;
        qint64 cutAfter = -1;
        bool stallInsteadOfClose = false;
    };
    bool takeSwallow(const QByteArray &method);
    Plan takeConnectionPlan();
    void noteRequest(const QByteArray &line);
    bool stalled() const { return m_stalled; }
    quint16 upstreamPort() const { return m_upstream; }

Q_SIGNALS:
    void closeAllRequested();

protected:
    void run() override;

private:
    quint16 m_upstream;
    std::atomic<quint16> m_port { 0 };
    std::atomic<bool> m_stalled { false };
    std::atomic<int> m_connections { 0 };
    mutable QMutex m_mutex;
    QByteArray m_swallowMethod;
    int m_swallowTimes = 0;
    qint64 m_cutAfter = -1;
    bool m_cutStalls = false;
    int m_cutTimes = 0;
    QByteArrayList m_requests;
};

#endif
