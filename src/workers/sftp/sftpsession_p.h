// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SFTPSESSION_P_H
#define QVFS_SFTPSESSION_P_H

#include "childprocess_p.h"
#include "error.h"
#include "sftppacket_p.h"
#include "sftpsession.h"
#include "sshprocess_p.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QHash>
#include <QSet>

#include <functional>

namespace Qvfs::Sftp
{

/*! What a failed request was doing: the error code of a generic FAILURE status. */
enum class Op : int {
    Read = ErrCannotRead,
    Write = ErrCannotWrite,
    Delete = ErrCannotDelete,
    Rename = ErrCannotRename,
    Other = ErrServerError,
};

// What every file of the session speaks of.
using Result = Session::Result;
using Failure = Session::Failure;

class SessionPrivate
{
public:
    using Result = Session::Result;
    using ReplyHandler = std::function<Result(const Packet::Reply &reply)>;

    explicit SessionPrivate(Session *q);

    // ---- the I/O loop (sftpsession.cpp)

    /*!
     * One round of the loop: hands every complete reply already received to \a handler
     * (replies to discarded requests are dropped); if there was none, writes what is
     * queued, asks the cancel callback (at most every 20 ms), waits up to 50 ms for ssh,
     * reads and dispatches. Returns the handler's first error, ErrCancelled, or the
     * connection's error (the session is then broken: every later call fails with it).
     */
    Result pump(const ReplyHandler &handler, bool checkCancel = true);
    /*! Starts a request: a new id, the packet begun in the output queue. */
    quint32 begin(Packet::Writer &w, Packet::Type type);
    quint32 beginExtended(Packet::Writer &w, QByteArrayView name);
    /*! Ends the request begun with \a w, counts it as outstanding and tries to write it out. */
    void finish(Packet::Writer &w);
    /*!
     * A whole request about \a path: begun, \a path as its first field, then what \a
     * more writes (attributes, a second path), finished. Returns its id.
     */
    template<typename More>
    quint32 request(Packet::Type type, QByteArrayView path, const More &more)
    {
        return whole([&](Packet::Writer &w) { return begin(w, type); }, path, more);
    }
    quint32 request(Packet::Type type, QByteArrayView path)
    {
        return request(type, path, [](Packet::Writer &) {});
    }
    /*! The same for the extension \a name (an OpenSSH extended request). */
    template<typename More>
    quint32 extendedRequest(QByteArrayView name, QByteArrayView first, const More &more)
    {
        return whole([&](Packet::Writer &w) { return beginExtended(w, name); }, first, more);
    }
    quint32 extendedRequest(QByteArrayView name, QByteArrayView first)
    {
        return extendedRequest(name, first, [](Packet::Writer &) {});
    }
    /*! request()'s and extendedRequest()'s body: \a start begins the packet. */
    template<typename Start, typename More>
    quint32 whole(const Start &start, QByteArrayView first, const More &more)
    {
        Packet::Writer w(out);
        const quint32 id = start(w);
        w.string(first);
        more(w);
        finish(w);
        return id;
    }
    /*! Sends one request and runs the loop until its reply was handled by \a onReply. */
    Result call(quint32 id, const ReplyHandler &onReply, bool checkCancel = true);
    /*! Forgets the request \a id: its reply, whenever it comes, is dropped. */
    void discard(quint32 id);
    /*!
     * Runs a pipeline of requests, \a inflight by id: calls \a topUp, which sends what may
     * be sent now and returns false once there is nothing left to wait for, then pump()s the
     * replies to \a handler, until then or the first failure. The requests still in flight
     * at the end are discarded. Returns the failure, if any.
     */
    template<typename Pending, typename TopUp>
    Result runPipeline(const QHash<quint32, Pending> &inflight, TopUp topUp, const ReplyHandler &handler)
    {
        Result failure;
        while (topUp()) {
            failure = pump(handler);
            if (!failure.ok())
                break;
        }
        for (auto it = inflight.cbegin(); it != inflight.cend(); ++it)
            discard(it.key());
        return failure;
    }
    /*! Runs the loop, without asking the cancel callback, until no request is outstanding or \a budgetMs passed. */
    void drain(int budgetMs);
    /*! Writes as much of the output queue as the pipe takes now. false: ssh is gone. */
    bool flushOutput();
    qsizetype queuedOutput() const { return out.size() - outPos; }
    /*! Marks the session broken with \a result and ends ssh. */
    Result breakWith(Result result);
    /*! A reply to a request that was never sent (or not by this call): breakWith() a protocol error. */
    Result unexpectedReply();
    /*! Sends a READ of \a length bytes of \a handle at \a offset; returns its id. */
    quint32 sendRead(const QByteArray &handle, quint64 offset, quint32 length)
    {
        return request(Packet::Read, handle, [&](Packet::Writer &w) {
            w.u64(offset);
            w.u32(length);
        });
    }
    /*! The failure ssh's stderr explains, else \a fallback (for connection loss). */
    Result connectionError(Session::Failure fallback, const QString &fallbackDetail);
    void readStderr();
    void handleStderrLine(QByteArrayView line);
    /*! Serves one askpass connection (during connect()). */
    bool serveAskpass();

    // ---- replies to results

    Result statusResult(const Packet::Reply &reply, const QByteArray &path, Op op) const;
    Result protocolError(const QString &what);
    /*! The server's first bytes are not SFTP. */
    Result notSftp(QByteArrayView start);
    /*! A request whose only reply is STATUS. */
    Result statusCall(quint32 id, const QByteArray &path, Op op, quint32 *status = nullptr);
    Result nameCall(quint32 id, const QByteArray &path, QByteArray *name);
    Result attrsCall(quint32 id, const QByteArray &path, Attributes *attrs);
    Result handleCall(quint32 id, const QByteArray &path, Op op, QByteArray *handle);
    Result unsupported(const QByteArray &path, const char *extension) const;
    bool checkConnected(Result *r) const;
    /*!
     * The frame of a single request: runs \a call (the request and its reply) when
     * connected, otherwise returns why not (checkConnected()).
     */
    template<typename Call>
    Result whenConnected(const Call &call)
    {
        Result r;
        if (!checkConnected(&r))
            return r;
        return call();
    }

    // ---- transfers (sftptransfer.cpp)

    Result removeQuietly(const QByteArray &path);
    /*! Closes \a handle (and removes \a tempPath) after a cancelled or failed transfer, within a short budget. */
    void abandonFile(const QByteArray &handle, const QByteArray &tempPath);
    QByteArray temporaryName(const QByteArray &path) const;
    /*!
     * Looks at what is at \a path, the destination of an upload or a copy (\a exists, and
     * \a existing its attributes): fails when that cannot be said, when something is there
     * and \a overwrite is false (ErrAlreadyExists), and when a folder is (ErrIsDirectory).
     */
    Result checkDestination(const QByteArray &path, bool overwrite, Attributes *existing, bool *exists);
    /*! Creates the temporary file \a temp (new, empty, \a permissions) and opens it for writing into \a handle. */
    Result createTemporary(const QByteArray &temp, quint32 permissions, QByteArray *handle);
    /*! Closes \a handle, the temporary \a temp written; removes \a temp when that fails. */
    Result closeTemporary(const QByteArray &handle, const QByteArray &temp);
    Result commitTemporary(const QByteArray &temp, const QByteArray &path, bool overwrite);
    Result finishTemporary(const QByteArray &temp, const QByteArray &path, const Session::PutOptions &options,
        const Attributes &existing, bool destinationExists);

    Session *q;
    Session::Options options;
    Session::CancelCallback cancel;
    Session::AskCallback ask;

    ChildProcess process;
    Ssh::AskpassServer askpass;
    Packet::InputBuffer in;
    QByteArray out;
    qsizetype outPos = 0;
    quint32 nextId = 1;
    QSet<quint32> discarded;
    int outstanding = 0;
    Session::Statistics statistics;

    bool connected = false;
    bool connecting = false;
    bool broken = false;
    Result brokenResult;
    QElapsedTimer lastActivity; //!< since the server (or ssh, connecting) last did something
    QDeadlineTimer nextCancelCheck; //!< when pump() asks the cancel callback again
    bool cancelledByPrompt = false;
    bool hostKeyRefused = false;
    QHash<QString, int> promptAttempts;

    // the server
    Packet::VersionInfo version;
    bool versionReceived = false;
    Limits limits;
    quint32 readChunk = 32768;
    quint32 writeChunk = 32768;
    bool extPosixRename = false;
    bool extStatVfs = false;
    bool extFsync = false;
    bool extHardlink = false;
    bool extLsetstat = false;
    bool extUserGroupNames = false;
    bool extCopyData = false;
    bool extLimits = false;
    int readdirDepth = 1;

    // readAt()'s read-ahead: READs sent for the pieces after the last one read in order
    struct AheadRead
    {
        quint64 offset = 0;
        quint32 length = 0;
        bool answered = false; //!< the reply came (during an earlier readAt())
        bool eof = false; //!< ... and it was the end of the file
        bool failed = false; //!< ... and it was an error (asked again when needed)
        QByteArray data; //!< ... and its data
    };
    QByteArray aheadHandle; //!< the file the read-ahead is for (empty: none)
    QHash<quint32, AheadRead> ahead; //!< request id → what it asks for
    quint64 aheadEnd = 0; //!< where the read-ahead ends
    quint64 lastReadEnd = UINT64_MAX; //!< where the last readAt() ended (sequential detection)
    bool inReadAt = false;
    /*! Forgets the read-ahead: its replies are dropped when they come. */
    void dropReadAhead();

    // ssh's stderr
    QByteArray stderrPartial;
    QList<QByteArray> stderrLines; //!< the last few, for error details
    Session::Failure stderrFailure = Session::Failure::None;
    QByteArray stderrFailureLine;
};

/*! A failed Result: \a error about \a path, with \a detail for the message. */
Session::Result makeError(
    int error, const QByteArray &path, const QString &detail = {}, Session::Failure failure = Session::Failure::None);

/*! The Qvfs error for the SFTP status \a status of an operation of kind \a op. */
int errorForStatus(quint32 status, Op op);

} // namespace Qvfs::Sftp

#endif
