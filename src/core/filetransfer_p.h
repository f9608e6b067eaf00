// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_FILETRANSFER_P_H
#define QVFS_FILETRANSFER_P_H

// One file copied from one worker to another: by the remote worker itself when it
// reads or writes local files (copyToFile / copyFromFile, no byte through the
// application), else streamed get → put through the application with a bounded buffer.
// Internal; the seed of a public Qvfs::fileCopy().

#include "requests.h"

#include <QByteArray>
#include <QObject>
#include <QPointer>
#include <QStringList>

namespace Qvfs
{
class AskDelegate;
class Job;
class TransferJob;
} // namespace Qvfs

namespace Qvfs::Internal
{

class FileTransfer : public QObject
{
    Q_OBJECT
public:
    /*!
     * What goes where and what it keeps: a FileCopyRequest's fields, which the routes
     * through one worker send as they are (the stream sets them on its get and put; its
     * size is what the job found, which a remote source streamed must give exactly).
     */
    using Spec = FileCopyRequest;
    enum class Route {
        Stream, //!< get → put through the application
        ToFile, //!< the source's worker writes the local destination itself
        FromFile, //!< the destination's worker reads the local source itself
    };

    FileTransfer(const Spec &spec, Route route, AskDelegate *delegate, QObject *parent);
    ~FileTransfer() override;

    const Spec &spec() const { return m_spec; }
    Route route() const { return m_route; }
    void start();
    /*! Stops it; the destination stays as it was. No more signals. */
    void kill();
    void setSuspended(bool suspended);

Q_SIGNALS:
    /*! Bytes of this file done so far. */
    void progressed(qint64 bytes);
    /*! The end: \a error 0 on success. */
    void finished(int error, const QStringList &args);

private:
    void startStream();
    void feedPut();
    void finish(int error, const QStringList &args);

    Spec m_spec;
    Route m_route;
    AskDelegate *m_delegate;
    bool m_suspended = false;
    bool m_done = false;
    QPointer<Job> m_job; // ToFile / FromFile
    QPointer<TransferJob> m_get;
    QPointer<TransferJob> m_put;
    QByteArray m_buffer;
    bool m_getDone = false;
    bool m_putWaiting = false;
    qint64 m_received = 0; // from the get, held to Spec::size when the source is remote
    qint64 m_sent = 0;
};

} // namespace Qvfs::Internal

#endif
