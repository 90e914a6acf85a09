import { SettingsTabs } from '../../components/settings-tabs';

const tabs = [
  { to: '/settings/profile', label: 'Profile' },
  { to: '/settings/sessions', label: 'Sessions' },
  { to: '/settings/tokens', label: 'API tokens' },
  { to: '/settings/providers', label: 'Providers' },
  { to: '/settings/review', label: 'Review' },
  { to: '/settings/github', label: 'GitHub' },
  { to: '/settings/gitlab', label: 'GitLab' },
] as const;

export function SettingsLayout() {
  return <SettingsTabs label="Settings" tabs={tabs} />;
}
