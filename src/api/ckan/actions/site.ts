import { siteSettings } from '../../../domain/site.ts';
import { invalidParameters, notFound } from '../../../domain/errors.ts';
import { licenseList as licenses } from '../package-dict.ts';
import type { Action } from './action.ts';
import { ckanSiteUrl } from '../envelope.ts';

/** status_show, site_read, license_list, help_show. */

/** The CKAN API version this one follows, which clients read to pick their code paths. */
export const CKAN_COMPATIBLE_VERSION = '2.10.0';

export const statusShow: Action = {
  help: 'The site: title, URL, the CKAN version whose API this one follows, and the extensions it emulates.',
  noPolicy: 'It describes the site, as GET /site/settings does, to anyone.',
  async run({ domain }) {
    const { config } = domain;
    const site = siteSettings(config);
    return {
      site_title: site.siteName,
      site_description: '',
      site_url: ckanSiteUrl(config),
      ckan_version: CKAN_COMPATIBLE_VERSION,
      almanac_version: site.version,
      error_emails_to: null,
      locale_default: 'en',
      extensions: ['datastore'],
    };
  },
};

export const siteRead: Action = {
  help: 'Whether the site can be read: always true.',
  noPolicy: 'The site is readable by anyone; the answer is a constant.',
  run: async () => true,
};

export const licenseList: Action = {
  help: 'The licenses a dataset’s license_id may name, with their titles, URLs and openness.',
  noPolicy: 'The license list is fixed reference data, the same for everyone.',
  run: async () => licenses(),
};

/** help_show over a table of actions; an unknown name is 404 Not Found as in CKAN. */
export const helpShow = (actions: () => Record<string, Action>): Action => ({
  help: 'The help text of an action: help_show name=<action>.',
  noPolicy: 'Help texts are documentation, the same for everyone.',
  async run({ params }) {
    const name = params.string('name');
    params.check();
    if (!name) throw invalidParameters([{ path: 'name', message: 'Missing value' }]);
    const action = Object.hasOwn(actions(), name) ? actions()[name] : undefined;
    if (!action) throw notFound(`Action "${name}"`);
    return action.help;
  },
});
