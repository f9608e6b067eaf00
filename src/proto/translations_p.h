// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include "qvfsproto_export.h"

#include <QString>

namespace Qvfs::Internal
{

/*!
 * The file of catalog qvfs_qt for the language of the environment, as gettext picks it
 * (LANGUAGE's list once the locale is not C, then LC_ALL, LC_MESSAGES, LANG; "de_DE.UTF-8"
 * tries "de_DE" then "de"), or an empty string when that language is English or C, or no
 * catalog is there. Looked for at the top of the build tree when the running program
 * lives in the build tree's bin/ (the client and the workers run from there in tests),
 * then in the installed locale folder.
 */
QVFSPROTO_EXPORT QString translationCatalog();

/*!
 * Installs translationCatalog() into the running QCoreApplication (which must exist);
 * returns the file installed, or an empty string. The client and every worker call it
 * once at start, so messages made on either side of the socket are in the user's language.
 */
QVFSPROTO_EXPORT QString installTranslations();

} // namespace Qvfs::Internal
