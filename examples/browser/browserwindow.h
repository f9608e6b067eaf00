// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_EXAMPLE_BROWSERWINDOW_H
#define QVFS_EXAMPLE_BROWSERWINDOW_H

#include <QList>
#include <QMainWindow>
#include <QUrl>

class QLabel;
class QLineEdit;
class QProgressBar;
class QTreeView;

namespace Qvfs
{
class DirModel;
class Job;
} // namespace Qvfs

/*!
 * A small file browser on Qvfs: folders as a tree on the left (DirModel in tree mode,
 * folders only), the current folder on the right (a flat DirModel, sortable columns).
 * Both stay true while files change. Copy, paste, delete, rename and new folders go
 * through jobs, with their progress in the status bar; the views follow without any
 * reloading, from the watch or from the jobs' own reports.
 */
class BrowserWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit BrowserWindow(const QUrl &start, QWidget *parent = nullptr);

    /*! Shows the folder \a url on the right. */
    void openFolder(const QUrl &url);

private:
    QList<QUrl> selectedUrls() const;
    void copySelection();
    void paste();
    void deleteSelection();
    void renameCurrent();
    void newFolder();
    void goUp();
    /*! Shows \a job's progress in the status bar until it ends. */
    void track(Qvfs::Job *job, const QString &what);

    Qvfs::DirModel *m_tree;
    Qvfs::DirModel *m_files;
    QTreeView *m_treeView;
    QTreeView *m_filesView;
    QLineEdit *m_location;
    QLabel *m_status;
    QProgressBar *m_progress;
    QList<QUrl> m_clipboard;
    int m_running = 0;
};

#endif
