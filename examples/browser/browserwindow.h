// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_EXAMPLE_BROWSERWINDOW_H
#define QVFS_EXAMPLE_BROWSERWINDOW_H

#include <QList>
#include <QMainWindow>
#include <QUrl>

class QAction;
class QLabel;
class QLineEdit;
class QModelIndex;
class QProgressBar;
class QTimer;
class QTreeView;

class DisplayProxy;

namespace Qvfs
{
class DirModel;
class Job;
} // namespace Qvfs

/*!
 * A small file browser on Qvfs: folders as a tree on the left (DirModel in tree mode,
 * folders only), the current folder on the right (a flat DirModel, sortable columns).
 * Both stay true while files change. Copy, paste, trash, delete, rename and new folders
 * go through jobs, with their progress in the status bar; the views follow without any
 * reloading, from the watch or from the jobs' own reports.
 *
 * What a file manager is expected to do on top of that, as a model of it: the tree
 * follows the current folder (DirModel::expandToUrl()), Up selects the folder one came
 * from, the status bar counts the items and shows a busy indicator while a folder loads,
 * and a folder's rows show once they are the first sorted ones (see startLoading()).
 */
class BrowserWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit BrowserWindow(const QUrl &start, QWidget *parent = nullptr);

    /*! Shows the folder \a url on the right. */
    void openFolder(const QUrl &url);

private:
    void setUpTree();
    void setUpFiles();
    void setUpActions();
    void setUpStatusBar();

    /*! The location bar, the title and the tree follow the current folder \a url. */
    void showLocation(const QUrl &url);
    /*! The tree model's expand(\a index): expands it, and selects it if it is the current folder. */
    void expandInTree(const QModelIndex &index);

    /*!
     * A folder was opened: its rows wait, hidden, until it is loaded or HoldMs passed.
     * A big folder's first rows are whatever the worker happened to send first, sorted;
     * shown at once they flash a sample of names from all over the list before the rows
     * that really come first push them down.
     */
    void startLoading();
    /*! Loading takes a while (BusyDelayMs): the busy indicator shows. */
    void showBusy();
    /*! The rows show (the folder is loaded, or it takes too long to wait for it). */
    void revealRows();
    /*! DirModel::loaded(\a url): the current folder is listed, every entry is a row. */
    void finishLoading(const QUrl &url);
    /*! "1,234 items" in the status bar. */
    void updateItemCount();
    /*! After Up: selects the folder one came from, once its row is there. */
    void selectCameFrom();

    QList<QUrl> selectedUrls() const;
    void copySelection();
    void paste();
    void trashSelection();
    void deleteSelection();
    /*! Deletes \a urls for good once the user said yes to \a question. */
    void deleteUrls(const QList<QUrl> &urls, const QString &question);
    void renameCurrent();
    void newFolder();
    void goUp();
    /*! Shows \a job's progress in the status bar until it ends. */
    void track(Qvfs::Job *job, const QString &what);

    Qvfs::DirModel *m_tree;
    Qvfs::DirModel *m_files;
    DisplayProxy *m_treeDisplay;
    DisplayProxy *m_filesDisplay;
    QTreeView *m_treeView;
    QTreeView *m_filesView;
    QLineEdit *m_location;
    QLabel *m_status;
    QLabel *m_count;
    QProgressBar *m_busy;
    QProgressBar *m_progress;
    QAction *m_trash = nullptr;
    QTimer *m_busyDelay;
    QTimer *m_hold;
    QUrl m_cameFrom; // after Up: the row to select once it is there
    QList<QUrl> m_clipboard;
    int m_running = 0;
};

#endif
