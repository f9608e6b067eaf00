// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_SMBLANE_P_H
#define QVFS_SMBLANE_P_H

#include "smbcontext_p.h"

#include <QByteArray>
#include <QtGlobal>

#include <sys/types.h>

namespace Qvfs::Smb
{

/*!
 * Another connection for one large transfer: a child of the worker (fork(), no exec)
 * with a libsmbclient context of its own, reading or writing the chunks the worker gives
 * it at their offsets while the worker does the others on its own context.
 *
 * Why a process: libsmbclient waits for the answer to each call, and between two calls
 * nothing is in flight (reads are pipelined only inside one call, writes not at all), so
 * one connection stalls a round trip per call. Connections taking chunks in turn hide
 * each other's stalls. Two contexts in two threads of one process would do,
 * but Debian 12's libsmbclient exports no smbc_thread_posix(): its talloc stack frames
 * are process-global without it, so two threads inside the library corrupt each other.
 *
 * The chunks travel in shared memory (slots() buffers of slotSize() bytes, mapped before
 * the fork): no copy through a pipe. Commands and answers are small records on a
 * socketpair, answered in order. The child dies with the worker (PR_SET_PDEATHSIG) and
 * ends when its socket closes; the password is copied by the fork, never written anywhere.
 */
class Lane
{
public:
    enum class Mode { Read, Write };

    Lane() = default;
    ~Lane();
    Lane(const Lane &) = delete;
    Lane &operator=(const Lane &) = delete;

    /*!
     * Starts the child, which opens \a libraryUrl (O_RDONLY for Read, O_WRONLY for
     * Write: the file must exist) on \a port with \a login on a connection of its own,
     * and maps \a slots buffers of \a slotSize bytes. Returns at once: commands may be
     * sent meanwhile. False with errno set when no child could be started.
     */
    bool start(Mode mode, const QByteArray &libraryUrl, int port, const Login &login, qint64 slotSize, int slots);
    bool isRunning() const { return m_pid > 0; }
    /*! Whether the child opened its file: a lane that failed before cannot have done a thing. */
    bool opened() const { return m_opened; }
    /*!
     * Whether the child has its file open, without waiting: false while it is still
     * connecting (a new connection costs some ten round trips), and for good once it
     * failed to (the child is then stopped). With \a wait, waits until it knows.
     */
    bool ready(bool wait = false);

    char *slot(int i) const { return m_memory + qint64(i) * m_slotSize; }
    /*! Commands sent and not yet answered. */
    int pending() const { return m_pending; }

    /*!
     * Asks the child to read \a length bytes at \a offset into slot \a slot (Read), or
     * to write the first \a length bytes of the slot at \a offset (Write). False when
     * the child is gone.
     */
    bool send(int slot, qint64 offset, qint64 length);
    /*!
     * Waits for the answer to the oldest command: the bytes read (fewer at the end of
     * the file) or written; -1 with \a err set (an errno value) on failure. A child
     * that could not open its file, or is gone, is stopped: see opened().
     */
    qint64 wait(int *err);
    /*!
     * Waits for the commands sent, closes the child's file and ends the child: 0, or -1
     * with \a err set (the first failure). The way to end a lane, also after a kill: the
     * file is closed on the server before the caller removes it.
     */
    int finish(int *err);
    /*! Ends the child now and waits for it (the slots stay). */
    void stop();

private:
    bool receive(qint64 *result, int *err);
    bool ensureOpened(int *err);

    Mode m_mode = Mode::Read;
    pid_t m_pid = 0;
    int m_fd = -1;
    char *m_memory = nullptr;
    qint64 m_slotSize = 0;
    int m_slots = 0;
    int m_pending = 0;
    bool m_opened = false;
};

} // namespace Qvfs::Smb

#endif
