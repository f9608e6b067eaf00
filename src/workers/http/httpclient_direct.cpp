// SPDX-License-Identifier: LGPL-2.1-or-later
// Requests on a socket of the client's own, beside Qt Network: the body of a streamed
// upload (PUT), and small safe requests whose answer nobody streams (a stat's PROPFIND
// Depth 0 or HEAD), on a kept-alive connection.
//
// Why: Qt 6.4 hands an upload device's bytes to its HTTP thread 16 KiB at a time, one
// round trip between the threads per piece (QNonContiguousByteDeviceThreadForwardImpl:
// wantData, then haveUploadData with a copy), and keeps at most 32 KiB in the socket.
// A 100 MiB PUT to nginx on loopback was 6,400 such round trips: 3.3x `curl -T`, the
// worker's profile 56% kernel time in context switches (finish_task_switch, spin
// unlocks), with nothing in Qt's public API to make the pieces larger. Here the body
// goes from the device to the socket in 256 KiB pieces, in this thread.
//
// And a stat through Qt crossed threads several times (request, headers, data, finished)
// and, on plain http without a proxy, read the status line and headers one read(2) per
// byte (Qt makes that socket unbuffered for its zero-copy body reads): 190 system calls
// for one PROPFIND Depth 0 answer of nginx, 0.67 ms a stat on loopback, 4.3x curl.
//
// And a download over https (get()): Qt's HTTP thread hands each piece its TLS socket
// decrypted to the worker's thread (a queued signal, a copy, a readBufferFreed signal
// back), so 100 MiB from nginx on loopback took 1.53-1.66x `curl -o`, half the worker's
// CPU time in its second thread (the kernel, futex and eventfd wake-ups, malloc/free of
// the pieces). Here the socket is decrypted and read in this thread, 256 KiB a read into
// one reused buffer, handed to the consumer in place (0.9-1.1x curl).
#include "error.h"
#include "http_debug.h"
#include "httpclient_p.h"
#include "httpresult_p.h"
#include "qvfs_version.h"
#include "uploaddevice_p.h"
#include "url_p.h"

#include <QCoreApplication>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QSslSocket>

#include <algorithm>
#include <cstring>
#include <memory>

namespace Qvfs::Http
{

namespace
{

// How long a server may take to answer "Expect: 100-continue" before the body goes
// anyway (servers that ignore the expectation; curl waits as long).
constexpr qint64 ContinueWaitMs = 1000;
// Bytes of the body read from the device and handed to the socket at once.
constexpr qint64 PieceBytes = 256 * 1024;
// Bytes the socket may hold unsent before the next piece is read.
constexpr qint64 WriteAheadBytes = 1024 * 1024;
// The most an answer's status line and headers may take.
constexpr qsizetype MaxHeadBytes = 64 * 1024;
// The most of an answer's body kept (an error page), as for answers through Qt.
constexpr qsizetype MaxBodyBytes = 1024 * 1024;
// Interim answers (1xx) taken before the final one, and the bytes of a chunked body's
// trailers: a server sending either without end would keep the exchange alive forever.
constexpr int MaxInterimAnswers = 8;
constexpr qsizetype MaxTrailerBytes = 8 * 1024;
// Bytes a streamed answer's socket holds at the most (each read takes a piece). Over TLS
// Qt holds them about four times (encrypted, a copy for OpenSSL, its BIO, decrypted):
// measured peak worker RSS during the benchmark's gets 22 MB at 512 KiB, 25 MB at 1 MiB,
// 30 MB at 2 MiB, 41 MB unbounded; get 100 MiB https at 1.2-1.6x, 1.2-1.4x, 1.3-1.5x and
// 0.8-1.0x curl (a larger buffer lets the socket refill less often).
constexpr qint64 StreamedBufferBytes = 1024 * 1024;

bool environmentNamesProxy()
{
    for (const char *name : { "http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY" }) {
        if (!qEnvironmentVariableIsEmpty(name))
            return true;
    }
    return false;
}

// An HTTP/1.1 answer read off the socket: status line, headers, body framing.
class Answer
{
public:
    enum class State { Head, Body, Done, Bad };

    // Takes what arrived in \a in (consumed from it; a body's bytes are handed on from
    // where they are and \a in keeps its capacity).
    void take(QByteArray *in)
    {
        qsizetype used = 0;
        while (used < in->size() && m_state != State::Done && m_state != State::Bad && !stopped) {
            if (m_state == State::Head) {
                in->remove(0, used);
                used = 0;
                head(in);
                continue;
            }
            const qsizetype n = body(QByteArrayView(*in).sliced(used));
            if (n == 0)
                break; // a chunk line not whole yet
            used += n;
        }
        if (used == in->size()) {
            in->resize(0);
        } else if (used > 0) {
            std::memmove(in->data(), in->constData() + used, size_t(in->size() - used));
            in->resize(in->size() - used);
        }
    }
    // The connection ended: an answer framed by the close is complete now.
    void closed()
    {
        if (m_state == State::Body && m_left < 0 && !m_chunked)
            m_state = State::Done;
    }
    State state() const { return m_state; }
    // Whether the connection may carry the next request: HTTP/1.1, framed, not "close".
    bool keepsAlive() const { return m_http11 && !m_close && !m_untilClose; }
    int status = 0;
    QByteArray reason;
    QList<QNetworkReply::RawHeaderPair> headers;
    QByteArray kept; // the body, up to MaxBodyBytes
    bool truncated = false;
    bool headOnly = false; // the answer to HEAD: no body whatever it says
    bool continued = false; // an interim answer came (100 Continue)
    // Called once the final answer's head is read, before its body (it may set sink or stopped).
    std::function<void()> onFinal;
    // Takes the body instead of kept; false stops the answer (stopped).
    std::function<bool(QByteArrayView)> sink;
    bool stopped = false;

private:
    void head(QByteArray *in)
    {
        m_head += *in;
        in->clear();
        // the empty line that ends the head: CRLF CRLF, or bare LFs as Qt accepts them
        const qsizetype crlf = m_head.indexOf("\n\r\n");
        const qsizetype lf = m_head.indexOf("\n\n");
        const bool byCrlf = crlf >= 0 && (lf < 0 || crlf < lf);
        const qsizetype end = byCrlf ? crlf : lf;
        if (end < 0 || end > MaxHeadBytes) {
            if (m_head.size() > MaxHeadBytes)
                m_state = State::Bad;
            return;
        }
        *in = m_head.sliced(end + (byCrlf ? 3 : 2));
        const QByteArrayList lines = m_head.first(end).split('\n');
        m_head.clear();
        const QByteArray first = lines.constFirst().trimmed();
        const qsizetype sp = first.indexOf(' ');
        // "HTTP/1.x NNN reason": three digits, then a space or the end of the line
        if (!first.startsWith("HTTP/1.") || sp < 0 || first.size() < sp + 4
            || (first.size() > sp + 4 && first.at(sp + 4) != ' ')) {
            m_state = State::Bad;
            return;
        }
        bool ok = false;
        const int code = first.mid(sp + 1, 3).toInt(&ok);
        if (!ok || code < 100 || code > 999 || code == 101) { // nothing here switches protocols
            m_state = State::Bad;
            return;
        }
        if (code < 200) {
            // an interim answer (100 Continue, 102, 103): the final one follows, after a
            // few of them at the most (each restarts no clock of its own)
            continued = continued || code == 100;
            if (++m_interim > MaxInterimAnswers)
                m_state = State::Bad;
            return;
        }
        status = code;
        reason = first.mid(sp + 5).trimmed();
        m_http11 = first.startsWith("HTTP/1.1");
        m_left = -1;
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QByteArray &l = lines.at(i);
            const qsizetype colon = l.indexOf(':');
            if (colon <= 0)
                continue;
            const QByteArray name = l.first(colon).trimmed();
            const QByteArray value = l.sliced(colon + 1).trimmed();
            headers.append(qMakePair(name, value));
            if (name.compare("content-length", Qt::CaseInsensitive) == 0) {
                const qint64 length = value.toLongLong(&ok);
                // two lengths that disagree: no way to know where the answer ends
                if (!ok || length < 0 || (m_left >= 0 && length != m_left)) {
                    m_state = State::Bad;
                    return;
                }
                m_left = length;
            } else if (name.compare("transfer-encoding", Qt::CaseInsensitive) == 0) {
                // chunked only as the last coding; any other coding runs to the close
                const QByteArrayList codings = value.toLower().split(',');
                m_chunked = codings.constLast().trimmed() == "chunked";
                m_encoded = true;
            } else if (name.compare("connection", Qt::CaseInsensitive) == 0) {
                m_close = value.toLower().contains("close");
            }
        }
        if (m_encoded)
            m_left = -1; // a length beside a transfer coding means nothing
        const bool none = headOnly || status == 204 || status == 304 || (!m_chunked && m_left == 0);
        m_state = none ? State::Done : State::Body;
        m_untilClose = !none && !m_chunked && m_left < 0;
        if (onFinal)
            onFinal();
    }
    void keep(QByteArrayView data)
    {
        if (sink) {
            stopped = stopped || (!data.isEmpty() && !sink(data));
            return;
        }
        const qsizetype room = MaxBodyBytes - kept.size();
        kept += data.first(qMin(room, data.size()));
        truncated = truncated || data.size() > room;
    }
    // Takes the body's bytes at the start of \a in; returns how many it took (0: more are needed).
    qsizetype body(QByteArrayView in)
    {
        if (!m_chunked) {
            const qsizetype n = m_left < 0 ? in.size() : qsizetype(qMin<qint64>(m_left, in.size()));
            keep(in.first(n));
            if (m_left >= 0) {
                m_left -= n;
                if (m_left == 0)
                    m_state = State::Done;
            }
            return n;
        }
        // chunked: "size\r\n" data "\r\n" ... "0\r\n" trailers "\r\n"
        if (m_left > 0) {
            const qsizetype n = qsizetype(qMin<qint64>(m_left, in.size()));
            keep(in.first(n));
            m_left -= n;
            if (m_left == 0)
                m_left = -2; // the CRLF after the data
            return n;
        }
        const qsizetype eol = in.indexOf("\r\n");
        if (eol < 0) {
            if (in.size() > 1024)
                m_state = State::Bad;
            return 0; // more to come
        }
        const QByteArrayView line = in.first(eol);
        if (m_left == -2) {
            m_left = -1;
            if (!line.isEmpty())
                m_state = State::Bad;
            return eol + 2;
        }
        if (m_trailers) {
            if (line.isEmpty())
                m_state = State::Done;
            else if ((m_trailerBytes += line.size() + 2) > MaxTrailerBytes)
                m_state = State::Bad; // trailers without end
            return eol + 2;
        }
        const qsizetype semi = line.indexOf(';');
        bool ok = false;
        const qint64 size = (semi < 0 ? line : line.first(semi)).trimmed().toLongLong(&ok, 16);
        if (!ok || size < 0) {
            m_state = State::Bad;
            return eol + 2;
        }
        if (size == 0)
            m_trailers = true;
        else
            m_left = size;
        return eol + 2;
    }

    State m_state = State::Head;
    QByteArray m_head;
    qint64 m_left = -1; // body bytes still to come (-1 unknown, -2 a chunk's CRLF)
    bool m_chunked = false;
    bool m_encoded = false; // a Transfer-Encoding was named
    bool m_trailers = false;
    int m_interim = 0; // interim (1xx) answers before the final one
    qsizetype m_trailerBytes = 0;
    bool m_http11 = false;
    bool m_close = false;
    bool m_untilClose = false; // a body that ends with the connection
};

} // namespace

bool HttpClient::goesDirect(const Request &req, const QUrl &url)
{
    if (!m_direct)
        return false;
    // a streamed upload, or a small safe request whose answer nobody streams (a stat)
    // (over https, a stat stays on Qt's HTTP/2 connection, shared by all of them)
    const bool small = !req.upload && !req.write && !req.onData && !req.onHeaders && !req.onBody
        && (req.method == "PROPFIND" || req.method == "HEAD") && url.scheme() == QLatin1String("http");
    // a download, streamed (get()): over https, where Qt's thread hops cost most
    const bool download = req.method == "GET" && req.onBody && req.onHead && !req.onData && !req.onHeaders
        && !req.upload && !req.write && req.body.isEmpty()
        && (url.scheme() == QLatin1String("https") || m_directHttpGets);
    if (!req.upload && !small && !download)
        return false;
    // Authentication stays with Qt (its authenticator keeps Digest and NTLM state), and
    // so do proxies.
    OriginState &state = m_origins[origin(url)];
    if (state.needsAuth)
        return false;
    if (state.proxied < 0) {
        // asked once per server: the query goes to libproxy, on a thread of its own
        // (measured: a third of the worker's time in a run of stats when asked each time)
        const QNetworkProxy::ProxyType own = m_nam->proxy().type();
        bool proxied = own != QNetworkProxy::DefaultProxy && own != QNetworkProxy::NoProxy;
        if (own == QNetworkProxy::DefaultProxy) {
            const QList<QNetworkProxy> found = QNetworkProxyFactory::proxyForQuery(QNetworkProxyQuery(url));
            for (const QNetworkProxy &p : found)
                proxied = proxied || p.type() != QNetworkProxy::NoProxy;
        }
        state.proxied = proxied || environmentNamesProxy() ? 1 : 0;
    }
    return state.proxied == 0;
}

Result HttpClient::sendDirect(Request &req, const QUrl &url, Response *resp, bool *useQt)
{
    *useQt = false;
    UploadDevice *device = req.upload;
    const bool tls = url.scheme() == QLatin1String("https");
    const int port = url.port(tls ? 443 : 80);
    const QString o = origin(url);
    QElapsedTimer activity;
    activity.start();
    ExchangePace pace;
    pace.start();
    // What Qt's path does in its event loop between its ticks: timers and the owner's
    // events run, then the kill check.
    const auto cancelled = [&] {
        QCoreApplication::processEvents();
        return !req.ignoreCancel && m_callbacks.cancelled && m_callbacks.cancelled();
    };
    const int limit = req.ignoreCancel ? qMin(m_timeoutMs, 5000) : m_timeoutMs;

    // The connection kept from the request before (small requests only), else a new one.
    bool reused = false;
    // Not one kept after its server sent more than its last answer (those bytes would be
    // read as the start of the next answer), nor one the server closed meanwhile.
    if (m_directSocket
        && (m_directOrigin != o || m_directSocket->waitForReadyRead(0) || m_directSocket->bytesAvailable() > 0
            || m_directSocket->state() != QAbstractSocket::ConnectedState))
        m_directSocket.reset();
    const bool streamed = bool(req.onBody);
    bool untrusted = false; // a download's certificate question was answered no
    QString sslErrorText;
    QMetaObject::Connection trustCheck; // (on this call's variables: undone after the handshake)
    std::unique_ptr<QTcpSocket> socket = std::move(m_directSocket);
    if (socket && !device) {
        reused = true;
    } else {
        socket.reset();
        if (tls) {
            auto *ssl = new QSslSocket;
            ssl->setSslConfiguration(sslConfiguration());
            ssl->setPeerVerifyName(url.host());
            // An upload: only what an earlier question (through Qt, on the same server)
            // allowed. A download asks here as Qt's path would (the same question, pins and
            // answers), and a refusal is the answer, not asked again through Qt.
            trustCheck = connect(ssl, &QSslSocket::sslErrors, ssl, [&, ssl](const QList<QSslError> &errors) {
                if (!streamed) {
                    if (pinned(url, ssl->peerCertificate(), errors))
                        ssl->ignoreSslErrors(errors);
                    return;
                }
                bool asked = false;
                const bool trusted = trustAfterErrors(
                    url, ssl->peerCertificate(), ssl->peerCertificateChain(), errors, &sslErrorText, &asked);
                if (asked) {
                    activity.restart();
                    pace.restart(0);
                }
                if (trusted)
                    ssl->ignoreSslErrors(errors);
                else
                    untrusted = true;
            });
            socket.reset(ssl);
            ssl->setProxy(QNetworkProxy::NoProxy); // decided in goesDirect(): none for this server
            ssl->connectToHostEncrypted(url.host(), quint16(port));
        } else {
            socket.reset(new QTcpSocket);
            socket->setProxy(QNetworkProxy::NoProxy);
            socket->connectToHost(url.host(), quint16(port));
        }
        // Connected (and encrypted): anything else is Qt's to do and to report, nothing was sent.
        for (;;) {
            if (tls ? static_cast<QSslSocket *>(socket.get())->isEncrypted()
                    : socket->state() == QAbstractSocket::ConnectedState)
                break;
            if (cancelled())
                return Result::fail(ErrCancelled);
            if (activity.hasExpired(limit))
                return Result::fail(ErrServerTimedOut, url); // as through Qt: no second wait
            if (untrusted)
                return networkResult(QNetworkReply::SslHandshakeFailedError, url, socket->errorString(), sslErrorText);
            if (socket->state() == QAbstractSocket::UnconnectedState) {
                qCDebug(QVFS_HTTP) << "direct: no connection to" << url.toDisplayString() << socket->errorString()
                                   << "; through Qt";
                *useQt = true;
                return Result::pass();
            }
            if (tls)
                static_cast<QSslSocket *>(socket.get())->waitForEncrypted(m_tickMs);
            else
                socket->waitForConnected(m_tickMs);
        }
        disconnect(trustCheck);
        socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    }
    // A streamed answer is read as the consumer takes it: what the socket holds stays
    // bounded, the rest waits in the kernel and then at the server.
    socket->setReadBufferSize(streamed ? StreamedBufferBytes : 0);

    QByteArray target = url.path(QUrl::FullyEncoded).toLatin1();
    if (target.isEmpty())
        target = "/"; // a redirect to "http://host" names no path
    if (url.hasQuery())
        target += '?' + url.query(QUrl::FullyEncoded).toLatin1();
    QByteArray host = url.host(QUrl::FullyEncoded).toLatin1();
    if (host.contains(':'))
        host = '[' + host + ']';
    if (url.port() != -1)
        host += ':' + QByteArray::number(port);
    // a Host the caller gives (the one it signed: the s3 worker) replaces ours, never beside it
    for (const auto &h : std::as_const(req.headers)) {
        if (h.first.compare("Host", Qt::CaseInsensitive) == 0)
            host = h.second;
    }
    const qint64 bodySize = device ? device->size() : req.body.size();
    QByteArray head
        = req.method + ' ' + target + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: Qvfs/" QVFS_VERSION_STRING;
    if (bodySize > 0 || device)
        head += "\r\nContent-Length: " + QByteArray::number(bodySize);
    // an upload waits for the server's consent before its body
    head += device ? "\r\nExpect: 100-continue\r\nConnection: close\r\n" : "\r\n";
    for (const auto &h : std::as_const(req.headers)) {
        if (h.first.compare("Host", Qt::CaseInsensitive) != 0)
            head += h.first + ": " + h.second + "\r\n";
    }
    head += "\r\n";
    if (!device)
        head += req.body;
    socket->write(head);
    ++m_directSends;
    qCDebug(QVFS_HTTP) << req.method << url.toDisplayString() << "(direct)";

    Answer answer;
    answer.headOnly = req.method == "HEAD";
    QByteArray in;
    bool received = false;
    qint64 receivedBytes = 0;
    qint64 receivedMark = 0;
    qint64 sentBytes = 0; // of an upload's body, out of the socket
    // The application's own time (a slow reader, a slow source) is no server's slowness.
    const auto applicationWaited = [&] {
        activity.restart();
        pace.restart(receivedBytes + sentBytes);
    };
    std::optional<Result> stopped; // what a streamed answer's consumer said
    bool headed = false; // the consumer has seen the answer: it is not sent again
    if (streamed) {
        // As on Qt's path: the head of the final answer (not a redirect followed, not a 401,
        // which goes through Qt), then a 2xx body piece by piece; the consumer's own time
        // (a slow reader) is no server's slowness.
        answer.onFinal = [&] {
            const int status = answer.status;
            const bool redirect = req.followRedirects && isRedirect(status)
                && std::any_of(answer.headers.cbegin(), answer.headers.cend(),
                    [](const auto &h) { return h.first.compare("location", Qt::CaseInsensitive) == 0; });
            if (redirect || status == 401)
                return;
            headed = true;
            const Result r = req.onHead(status, answer.headers, url);
            applicationWaited();
            if (!r.ok()) {
                stopped = r;
                answer.stopped = true;
                return;
            }
            if (status < 200 || status >= 300)
                return;
            answer.sink = [&](QByteArrayView piece) {
                QElapsedTimer consumer;
                consumer.start();
                const Result b = req.onBody(piece);
                if (consumer.elapsed() >= ConsumerWaitMs)
                    applicationWaited();
                if (!b.ok())
                    stopped = b;
                return b.ok();
            };
        };
    }
    const qint64 readBytes = streamed ? m_chunkSize : MaxHeadBytes;
    // Reads what arrived; false when the connection is gone. Progress against the
    // timeout is ProgressBytes at a time, as through Qt: a server trickling a byte a
    // second is no more alive than a silent one.
    const auto receive = [&] {
        while (socket->bytesAvailable() > 0 && !answer.stopped) {
            const qsizetype had = in.size();
            const qint64 want = qMin(socket->bytesAvailable(), readBytes);
            in.resize(had + want);
            const qint64 got = socket->read(in.data() + had, want);
            in.resize(had + qMax<qint64>(got, 0));
            if (got <= 0)
                break;
            receivedBytes += got;
            received = true;
            answer.take(&in);
            if (receivedBytes - receivedMark >= ProgressBytes || answer.state() == Answer::State::Done) {
                receivedMark = receivedBytes;
                activity.restart();
            }
            if (answer.state() == Answer::State::Done || answer.state() == Answer::State::Bad)
                break;
        }
        return socket->state() == QAbstractSocket::ConnectedState;
    };
    // silent for the transfer timeout, or too slow on average since (ExchangePace)
    const auto expired = [&] { return activity.hasExpired(limit) || pace.tooSlow(receivedBytes + sentBytes, limit); };
    const auto closedEarly = [&] {
        if (reused && !received) {
            // The kept connection was closed by the server meanwhile (its idle timeout):
            // a safe request goes again on a new one, as Qt does.
            qCDebug(QVFS_HTTP) << "direct: the kept connection had closed; again";
            return sendDirect(req, url, resp, useQt);
        }
        if (streamed && !headed && m_directAgain == 0) {
            // Cut before the answer's head: nothing reached the consumer, and a GET may go
            // again, once, on a new connection (as Qt sends one again).
            qCDebug(QVFS_HTTP) << "direct: the connection closed before the answer; again";
            ++m_directAgain;
            socket.reset();
            const Result again = sendDirect(req, url, resp, useQt);
            --m_directAgain;
            return again;
        }
        if (streamed) // the caller resumes a download where that is safe
            return Result::fail(ErrConnectionFailed, Url::Detail::hostDisplay(url),
                "the connection closed before the end of the data", answer.status);
        return Result::fail(ErrConnectionFailed, Url::Detail::hostDisplay(url),
            "the connection closed after the " + req.method
                + " request was sent; it was not sent again and may or may not have been carried out");
    };

    if (device) {
        // "100 Continue", or the final answer before any byte of the body (a refusal), or
        // nothing within ContinueWaitMs (the body goes anyway).
        QElapsedTimer waitContinue;
        waitContinue.start();
        for (;;) {
            if (cancelled())
                return Result::fail(ErrCancelled);
            if (!receive() && answer.status == 0)
                return closedEarly();
            if (answer.status != 0 || answer.state() == Answer::State::Bad || answer.continued
                || waitContinue.hasExpired(ContinueWaitMs))
                break;
            socket->waitForReadyRead(m_tickMs);
        }
        if (answer.status == 417 || answer.status == 401) {
            // not carried out: no byte of the body was sent
            if (answer.status == 401) {
                m_origins[o].needsAuth = true;
                const Result a = settleAuthentication(url, req.ignoreCancel);
                if (!a.ok())
                    return a;
            }
            qCDebug(QVFS_HTTP) << "direct upload refused with" << answer.status << "before the body; through Qt";
            *useQt = true;
            return Result::pass();
        }
        // the body, unless the server answered already; an application feeding it
        // slowly is no server gone silent
        connect(device, &UploadDevice::waitedForSource, socket.get(), applicationWaited);
        QByteArray piece(PieceBytes, Qt::Uninitialized);
        qint64 handed = 0;
        qint64 mark = 0;
        QElapsedTimer tick;
        tick.start();
        while (answer.status == 0 && (handed < device->size() || socket->bytesToWrite() > 0)) {
            if (tick.elapsed() >= m_tickMs) {
                tick.restart();
                if (cancelled())
                    return Result::fail(ErrCancelled);
            }
            if (!receive()) {
                if (answer.status != 0)
                    break; // answered (a 413), then closed
                return closedEarly();
            }
            if (answer.status != 0)
                break; // an answer before the end of the body: the server stopped reading
            sentBytes = handed - socket->bytesToWrite();
            if (sentBytes - mark >= ProgressBytes) {
                mark = sentBytes;
                activity.restart();
            }
            if (expired())
                return Result::fail(ErrServerTimedOut, url);
            if (handed < device->size() && socket->bytesToWrite() < WriteAheadBytes) {
                const qint64 n = device->read(piece.data(), qMin(PieceBytes, device->size() - handed));
                if (n <= 0)
                    return Result::fail(ErrCannotWrite, url); // the source ended early
                socket->write(piece.constData(), n);
                handed += n;
                continue;
            }
            socket->waitForBytesWritten(m_tickMs);
        }
    }

    // the answer
    QElapsedTimer tick;
    tick.start();
    while (answer.state() == Answer::State::Head || answer.state() == Answer::State::Body) {
        if (tick.elapsed() >= m_tickMs) {
            tick.restart();
            if (cancelled())
                return Result::fail(ErrCancelled);
        }
        if (!receive() && !answer.stopped) {
            if (socket->bytesAvailable() > 0)
                continue; // what came before the close first
            answer.closed();
            if (answer.state() == Answer::State::Done)
                break;
            return closedEarly();
        }
        // Enough of an answer nobody streams: the rest is not waited for (as through Qt).
        if (answer.state() == Answer::State::Done || answer.state() == Answer::State::Bad || answer.truncated
            || answer.stopped)
            break;
        if (expired())
            return Result::fail(ErrServerTimedOut, url);
        // What the socket holds is read before anything is waited for: a TLS socket
        // decrypts what it has (flush()) only as its read buffer empties.
        if (auto *ssl = qobject_cast<QSslSocket *>(socket.get()))
            ssl->flush();
        if (socket->bytesAvailable() == 0)
            socket->waitForReadyRead(m_tickMs);
    }
    if (stopped)
        return *stopped; // the connection goes with the rest of the answer
    if (answer.state() == Answer::State::Bad) {
        if (reused && !device && !headed) {
            // Bytes the server sent after its last answer (a HEAD answered with a body)
            // were waiting on the kept connection: a safe request goes again on a new one.
            qCDebug(QVFS_HTTP) << "direct: a malformed answer on the kept connection; again on a new one";
            socket.reset();
            return sendDirect(req, url, resp, useQt);
        }
        return Result::fail(ErrServerError, urlArgument(url), "a malformed HTTP answer to " + req.method);
    }
    if (answer.status == 401) {
        // Credentials are Qt's business: from now on this server's requests go through Qt,
        // which asks; a safe request goes again right away (an upload's body is gone).
        m_origins[o].needsAuth = true;
        if (!device) {
            *useQt = true;
            return Result::pass();
        }
    }
    // kept for the next small request when the server keeps it
    if (!device && answer.state() == Answer::State::Done && answer.keepsAlive() && in.isEmpty()
        && !socket->waitForReadyRead(0) && socket->bytesAvailable() == 0) {
        m_directSocket = std::move(socket);
        m_directOrigin = o;
    }
    resp->status = answer.status;
    resp->reason = answer.reason;
    resp->headers = answer.headers;
    resp->body = answer.kept;
    resp->bodyTruncated = answer.truncated;
    return Result::pass(answer.status);
}

} // namespace Qvfs::Http
