// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef QVFS_KEYS_P_H
#define QVFS_KEYS_P_H

// Every key of the options, results, progress and question blocks on the wire, defined
// once. Both sides use these names only through requests_p.h and the few places that
// read results; a misspelt key is a compile error, not a silent 0. Internal.

namespace Qvfs::Internal::Keys
{
// requests
constexpr char Details[] = "details";
constexpr char Recursive[] = "recursive";
constexpr char FollowSymlinks[] = "follow-symlinks";
constexpr char Permissions[] = "permissions";
constexpr char Parents[] = "parents";
constexpr char DeleteScope[] = "scope";
constexpr char Overwrite[] = "overwrite";
constexpr char Target[] = "target";
constexpr char CopyTarget[] = "into";
constexpr char Conflict[] = "conflict";
constexpr char Move[] = "move";
constexpr char Preserve[] = "preserve";
constexpr char Count[] = "count";
constexpr char ReportItems[] = "report-items";
constexpr char TrashAction[] = "trash-action";
constexpr char Offset[] = "offset";
constexpr char MTime[] = "mtime";
constexpr char MTimeNs[] = "mtime-ns";
constexpr char Size[] = "size";
constexpr char Device[] = "device";
constexpr char Inode[] = "inode";
constexpr char ParentDevice[] = "parent-device";
constexpr char ParentInode[] = "parent-inode";
constexpr char PollMs[] = "poll-ms";
/*!
 * A command that creates or changes one entry (mkdir, put, symlink, chmod, set time,
 * rename, copyFromFile) sends that entry before Finished, with these details (number).
 */
constexpr char ResultEntry[] = "result-entry";
constexpr char OpenRead[] = "read";
constexpr char OpenWrite[] = "write";
constexpr char OpenAppend[] = "append";
constexpr char OpenTruncate[] = "truncate";
constexpr char OpenCreate[] = "create";
constexpr char OpenExclusive[] = "exclusive";

// progress
constexpr char Bytes[] = "bytes";
constexpr char Files[] = "files";
constexpr char Dirs[] = "dirs";
constexpr char Skipped[] = "skipped";
constexpr char TotalBytes[] = "total-bytes";
constexpr char TotalFiles[] = "total-files";
constexpr char TotalDirs[] = "total-dirs";

// results and metadata (bytes/files/dirs above for directory sizes)
constexpr char Removed[] = "removed";
constexpr char SkippedFolders[] = "skipped-folders";
constexpr char WireBytes[] = "wire-bytes";
constexpr char MimeType[] = "mimetype";
constexpr char TimesKept[] = "times-kept";
constexpr char CanSeek[] = "can-seek";
constexpr char CanWrite[] = "can-write";
constexpr char CanTruncate[] = "can-truncate";
constexpr char CanAppend[] = "can-append";
// free space of a filesystem (bytes; a figure the worker does not know is not sent)
constexpr char SpaceTotal[] = "space-total";
constexpr char SpaceFree[] = "space-free";
constexpr char SpaceAvailable[] = "space-available";
constexpr char SpaceUsed[] = "space-used";

// questions and answers
constexpr char QuestionId[] = "qid";
constexpr char Kind[] = "kind";
constexpr char Source[] = "source";
constexpr char Destination[] = "destination";
constexpr char Action[] = "action";
constexpr char ApplyToAll[] = "apply-to-all";
constexpr char Url[] = "url";
constexpr char Realm[] = "realm";
constexpr char User[] = "user";
constexpr char Prompt[] = "prompt";
constexpr char Retry[] = "retry";
constexpr char SecretOnly[] = "secret-only";
constexpr char Password[] = "password";
constexpr char Remember[] = "remember";
constexpr char Host[] = "host";
constexpr char Fingerprint[] = "fingerprint";
constexpr char Detail[] = "detail";
constexpr char Trust[] = "trust";
constexpr char Error[] = "error";

// hello
constexpr char Protocol[] = "protocol";
constexpr char Pid[] = "pid";
} // namespace Qvfs::Internal::Keys

#endif
